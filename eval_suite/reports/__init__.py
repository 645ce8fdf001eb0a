"""Reports over a run directory's records."""
