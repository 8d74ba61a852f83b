"""Module-wide settings of htmldate 1.11.0 (htmldate/settings.py)."""

from __future__ import annotations

from datetime import datetime

from ._tables import CLEANING_LIST as _CLEANING

# earliest date taken into account (inclusive)
MIN_DATE: datetime = datetime(1995, 1, 1)
# upper bound on the number of candidates a pass looks at
MAX_POSSIBLE_CANDIDATES: int = 1000
# bounds (in characters) of a text segment that may hold a date
MIN_SEGMENT_LEN: int = 6
MAX_SEGMENT_LEN: int = 52
# elements deleted (tails kept) from the copy the text passes search
CLEANING_LIST: list = list(_CLEANING)
