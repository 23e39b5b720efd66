"""Checks every ``--configfile`` with the workflow's own loader before Snakemake reads it.

Snakemake's command line loads ``--configfile`` files while it builds its settings, before it reads
the Snakefile, so the Snakefile cannot guard them: a file of random bytes ends in a
``UnicodeDecodeError`` traceback, and an empty file, a list or a YAML syntax error in a message that
names no file. The only code of ours that runs earlier is a Snakemake plugin: Snakemake imports every
installed ``snakemake_logger_plugin_*`` package while it builds its command line. Importing this one
wraps Snakemake's config-file loader with :func:`dogs.config.load_config_file` (size, encoding, alias
expansion, depth, syntax with file and line, duplicate keys; see :func:`dogs.config.install_snakemake_config_check`),
so a broken or hostile config file is refused at once, naming the file.

It is a logger plugin only in form (Snakemake would refuse a plugin module without a ``LogHandler``):
choosing it with ``--logger dogs-config-check`` is refused with a message saying so. The check is
installed for every Snakemake run of the environment the package is installed in, whatever the
workflow; it refuses only what no config file should contain.
"""

from logging import LogRecord

from snakemake_interface_logger_plugins.base import LogHandlerBase

from dogs.config import install_snakemake_config_check

install_snakemake_config_check()


class LogHandler(LogHandlerBase):
    """Not a logger: selecting this plugin with ``--logger`` is refused (module docstring)."""

    def __post_init__(self) -> None:
        raise ValueError("dogs-config-check is not a logger: it only checks --configfile files, which it does "
                         "whenever it is installed; drop it from --logger")

    def emit(self, record: LogRecord) -> None:  # pragma: no cover - never constructed
        pass

    @property
    def writes_to_stream(self) -> bool:
        return False

    @property
    def writes_to_file(self) -> bool:
        return False

    @property
    def has_filter(self) -> bool:
        return False

    @property
    def has_formatter(self) -> bool:
        return False

    @property
    def needs_rulegraph(self) -> bool:
        return False
