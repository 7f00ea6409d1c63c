"""Metadata jobs beside the scrape queue: people's details and pictures,
collections, NFO sync (issue 33; docs/metadata-jobs.md).

The package's face: the actor and its messages. Its modules are private.
"""

from ._actor import PEOPLE_KINDS, TITLES, BatchListener, CancelMetadataJob, MetadataJobs, StartMetadataJob
from ._people import PERSON_CAPABILITY

__all__ = [
    "PEOPLE_KINDS", "PERSON_CAPABILITY", "TITLES", "BatchListener", "CancelMetadataJob", "MetadataJobs",
    "StartMetadataJob",
]
