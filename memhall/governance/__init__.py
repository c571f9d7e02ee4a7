"""Use cases of the hall: persistence, inline projections, governance."""
