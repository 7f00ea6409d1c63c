"""Domain actors: what :mod:`.tree` starts, and the scan pipeline and monitor they drive.

The runtime they run on (Actor, ActorRef, Supervisor, EventBus...) is
:mod:`reelhouse.runtime`; import it from there.
"""
