"""Domain actors. The runtime they run on lives in :mod:`reelhouse.runtime`; its public names are re-exported here so `from reelhouse.actors import Actor` keeps working."""

from reelhouse.runtime import REPLAY_CAPACITY, EventBus, wall_clock_ms
from reelhouse.runtime import Event, EventLog, MemoryEventLog
from reelhouse.runtime import (
    DEFAULT_ASK_TIMEOUT_SECONDS,
    DEFAULT_MAILBOX_SIZE,
    Actor,
    ActorCrashed,
    ActorError,
    ActorFactory,
    ActorRef,
    ActorStopped,
    AskTimeout,
    PendingReply,
    is_cancellation,
    run_actor,
    spawn,
)
from reelhouse.runtime import SUBSCRIBER_QUEUE_SIZE, Gap, SubscriberDropped, Subscription
from reelhouse.runtime import (
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
    "AskTimeout",
    "ChildSpec",
    "Event",
    "EventBus",
    "EventLog",
    "Gap",
    "MemoryEventLog",
    "PendingReply",
    "RootActor",
    "SubscriberDropped",
    "Subscription",
    "Supervisor",
    "SupervisorGaveUp",
    "is_cancellation",
    "run_actor",
    "spawn",
    "wall_clock_ms",
]
