"""Operator tools beside the deployment files they use (installed as ``cacaoai.deploy``):
``cacao-replicas`` (:mod:`.replicas`) runs N cacao-server replicas behind nginx on one machine."""
