"""The read models as pure functions of the log (see `ops`), and their table specs.

Importing the package registers every handler. It imports neither pydantic nor
SQLAlchemy: the fast handoff path writes through it too.
"""

from memhall.governance.projection import (  # noqa: F401 (each registers its handlers)
    charters,
    dynamics,
    entries,
    evidence,
    exposure,
    opinions,
    promotions,
    relationships,
    requests,
    sessions,
    written,
)
from memhall.governance.projection.ops import ops_for

__all__ = ["ops_for"]
