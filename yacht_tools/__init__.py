"""Tools around the environments and agents: evaluation against optimal play (:mod:`.evaluation`), replay
(:mod:`.replay`), the terminal game (:mod:`.play`), tournaments (:mod:`.tournament`) and the ``yacht`` command
(:mod:`.cli`)."""
