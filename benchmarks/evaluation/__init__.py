"""The recall yardstick (issue 12, §5): datasets, ingest through the hall,
pluggable recall systems, and the scores they are compared by."""
