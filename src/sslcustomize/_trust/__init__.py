"""Trust anchors: the system store, trust sources, CA-bundle variables."""
