"""The actor runtime: Actor, ActorRef, mailbox, Supervisor, RootActor, EventBus.

No domain code; the private modules are re-exported here (like trio).
"""

from ._eventbus import REPLAY_CAPACITY, EventBus, wall_clock_ms
from ._eventlog import Event, EventLog, MemoryEventLog, SharedEventLog
from ._runtime import (
    DEFAULT_ASK_TIMEOUT_SECONDS,
    DEFAULT_MAILBOX_SIZE,
    Actor,
    ActorCrashed,
    ActorError,
    ActorFactory,
    ActorRef,
    ActorStopped,
    Ask,
    AskTimeout,
    NestedAskFailed,
    PendingReply,
    is_cancellation,
    nested_ask_failed,
    run_actor,
    sole_exception,
    spawn,
)
from ._subscription import SUBSCRIBER_QUEUE_SIZE, Gap, SubscriberDropped, Subscription
from ._supervisor import (
    DEFAULT_MAX_RESTARTS,
    DEFAULT_RESTART_WINDOW,
    DEFAULT_STOP_TIMEOUT,
    ChildSpec,
    RootActor,
    Supervisor,
    SupervisorGaveUp,
)

__all__ = [
    "DEFAULT_ASK_TIMEOUT_SECONDS",
    "DEFAULT_MAILBOX_SIZE",
    "DEFAULT_MAX_RESTARTS",
    "DEFAULT_RESTART_WINDOW",
    "DEFAULT_STOP_TIMEOUT",
    "REPLAY_CAPACITY",
    "SUBSCRIBER_QUEUE_SIZE",
    "Actor",
    "ActorCrashed",
    "ActorError",
    "ActorFactory",
    "ActorRef",
    "ActorStopped",
    "Ask",
    "AskTimeout",
    "ChildSpec",
    "Event",
    "EventBus",
    "EventLog",
    "Gap",
    "MemoryEventLog",
    "NestedAskFailed",
    "PendingReply",
    "RootActor",
    "SharedEventLog",
    "SubscriberDropped",
    "Subscription",
    "Supervisor",
    "SupervisorGaveUp",
    "is_cancellation",
    "nested_ask_failed",
    "run_actor",
    "sole_exception",
    "spawn",
    "wall_clock_ms",
]
