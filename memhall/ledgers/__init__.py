"""Council materialization (A/B/C ledgers), memory requests, recall."""
