"""One screen per task: rows, canary, batch, records, compare, post-install check; plus help."""
