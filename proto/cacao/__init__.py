"""Package ``cacao`` of the Cacao API."""
