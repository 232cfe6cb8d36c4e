"""Persisted projections (issue 27's read side): views of the store's log kept in tables of the same
store, each written atomically with its tracking position by eventsourcing's ``Projection`` and
``TrackingRecorder`` machinery, pulled by :mod:`.runner` in the worker, and only read by requests.

One module per read model holds its projection and its view (its tables and queries, in SQLite and
PostgreSQL: :mod:`.base`).  Every read model of the main store but the ladders' (``standings``, its
own loop) is one (``catalog.VIEWS``), and the notices of the notification process's
(``catalog.NOTICE_VIEWS``)."""
