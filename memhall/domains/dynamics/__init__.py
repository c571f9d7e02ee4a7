"""Memory dynamics (SPEC §7): pure functions over snapshots that propose, never write."""
