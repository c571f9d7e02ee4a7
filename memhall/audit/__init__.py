"""Tamper evidence: hash chain, verify, checkpoints, review queries."""
