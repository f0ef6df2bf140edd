"""A conversation's events (DESIGN.md §6): the numbered, replayable log each is appended to and
published from (``log``), what the worker and the use cases publish (``publishing``), the
payloads' shapes (``payloads``), and the approvers' channel-layer feed (``publisher``)."""
