"""Load tests of the Cacao gRPC service (see README.md): ``python -m loadtest.run``."""
