"""Files in and out: scenario and catalogue files (:mod:`~planner.io.files`), the ``models/``
catalogue (:mod:`~planner.io.catalogue`) and army lists (:mod:`~planner.io.roster`).

The domain packages never open a file; they take records that this package reads.
"""
