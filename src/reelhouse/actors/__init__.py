"""Domain actors: what :mod:`.tree` starts, and the scan pipeline (:mod:`.scan`) and the realtime
monitor (:mod:`.realtime`) they drive.

The runtime they run on (Actor, ActorRef, Supervisor, EventBus...) is
:mod:`reelhouse.runtime`; import it from there.
"""
