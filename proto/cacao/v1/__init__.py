"""Version 1 of the Cacao API (protobuf package ``cacao.v1``): generated modules."""
