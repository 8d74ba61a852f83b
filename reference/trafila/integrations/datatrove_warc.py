"""datatrove's ``WarcReader`` with trafila's WARC parser: ``trafila.integrations.datatrove_warc.WarcReader``.

``from trafila.integrations.datatrove_warc import WarcReader`` replaces
``from datatrove.pipeline.readers import WarcReader`` (datatrove 0.10.1): same arguments and
defaults, same ``name``, the same documents in the same order (ids, texts, metadata, the
``id_in_file`` given to the adapter counting the records skipped), the same statistics
(datatrove's ``BaseDiskReader``: files, documents, limit and skip). The records are parsed by
:mod:`trafila.fineweb.warc`; what it does not reproduce is read by warcio (counted in
``fallback_counts``, never in the step's statistics).
"""

from typing import Callable, Dict, Literal

from trafila.integrations import needs_datatrove

with needs_datatrove(__name__, "fineweb"):
    from datatrove.io import DataFileLike, DataFolderLike
    from datatrove.pipeline.readers.base import BaseDiskReader

from trafila.fineweb.warc import iter_warc

__all__ = ["WarcReader"]


class WarcReader(BaseDiskReader):
    """Reads WARC files, one document per HTML response (or WET conversion) record (datatrove's ``WarcReader``).

    Args: as datatrove's: ``data_folder``, ``paths_file``, ``compression`` ("infer", "gzip", "zstd" or
    None), ``limit``, ``skip``, ``file_progress``, ``doc_progress``, ``adapter``, ``text_key``,
    ``id_key``, ``default_metadata``, ``recursive``, ``glob_pattern``, ``shuffle_files``.
    """

    name = "🕷 Warc"
    _requires_dependencies = ["warcio", ("cchardet", "faust-cchardet"), ("magic", "python-magic")]

    def __init__(
        self,
        data_folder: DataFolderLike,
        paths_file: DataFileLike | None = None,
        compression: Literal["infer", "gzip", "zstd"] | None = "infer",
        limit: int = -1,
        skip: int = 0,
        file_progress: bool = False,
        doc_progress: bool = False,
        adapter: Callable = None,
        text_key: str = "text",
        id_key: str = "id",
        default_metadata: dict = None,
        recursive: bool = True,
        glob_pattern: str | None = None,
        shuffle_files: bool = False,
    ):
        self.compression = compression
        super().__init__(
            data_folder,
            paths_file,
            limit,
            skip,
            file_progress,
            doc_progress,
            adapter,
            text_key,
            id_key,
            default_metadata,
            recursive,
            glob_pattern,
            shuffle_files,
        )
        #: what warcio read instead of trafila's parser: records (files read again), payloads, files
        self.fallback_counts: Dict[str, int] = {"records": 0, "payloads": 0, "files": 0}

    def read_file(self, filepath: str):
        """The documents of one WARC file, in order."""

        def open_file():
            return self.data_folder.open(filepath, "rb", compression=self.compression)

        def finish(data, ri):
            return self.get_document_from_dict(data, filepath, ri) if data else None

        for document in iter_warc(open_file, self.fallback_counts, self.track_time, finish):
            if document:
                yield document
