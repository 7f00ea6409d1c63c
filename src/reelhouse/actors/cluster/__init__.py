"""Several nodes on one PostgreSQL database: node rows, a leader per library, commands to it.

- :mod:`.node`: this node (id, address, heartbeat, notifications).
- :mod:`.leadership`: the leases of the libraries this node leads.
- :mod:`.renewal`: renewing leases on schedule, stepping down by deadline.
- :mod:`.seat`: the cluster's one Scheduler, on the node holding its lease.
- :mod:`.remote`: RemoteRef, an ActorRef for an actor on the leading node.
- :mod:`.inbox`: the leader's side of those commands.
- :mod:`.codec`: messages and answers as JSON.

A SQLite server has none of this: it is a cluster of one.
"""

from .leadership import Leadership, LeaseLost, LeaseWon, keep_leading, offer_to_lead
from .node import ClusterConfig, ClusterNode, new_cluster_node, run_node
from .remote import RemoteRef, library_target

__all__ = [
    "ClusterConfig",
    "ClusterNode",
    "Leadership",
    "LeaseLost",
    "LeaseWon",
    "RemoteRef",
    "keep_leading",
    "library_target",
    "new_cluster_node",
    "offer_to_lead",
    "run_node",
]
