"""Persisted projections (issue 27's read side): views of the store's log kept in tables of the same
store, each written atomically with its tracking position by eventsourcing's ``Projection`` and
``TrackingRecorder`` machinery, pulled by :mod:`.runner` in the worker, and only read by requests.

The first and so far only view is the open games' (:mod:`.seeks`); the other read models are still
in-memory ``LogFollower``s (``service.application.store``)."""
