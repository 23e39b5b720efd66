# Helpers shared by all rule files (output locations, config slices, step params, data sets, report captions and
# the declared named targets).

import hashlib
import json
import os
import shlex
import sys

from snakemake.logging import logger

from dogs.data import (
    DatasetMissingError,
    ENV_VAR,
    absent_notice,
    data_dir,
    is_absent,
    require_dataset,
)
from dogs.experiments import estimate_memory

RESULTS = config["results_dir"]
FIGURES = config["figures_dir"]
# The interpreter for `python -m dogs...`: the one running Snakemake (its virtual environment),
# or the conda environment's own `python` under --use-conda.
_USES_CONDA = "CONDA" in {
    m.name for m in workflow.deployment_settings.deployment_method
}
PYTHON = "python" if _USES_CONDA else sys.executable
CONDA_ENV = "../envs/environment.yaml"
# `threads: ALL_CORES` claims every core of the run (Snakemake caps a rule's threads at --cores), so no
# other job runs beside a timed one; unlike `workflow.cores` it lets planning commands such as
# `snakemake --summary` or `-n` work without --cores.
ALL_CORES = 1024
# Jobs that read clocks claim every core and get this `priority:`. The scheduler then starts them first, one at a
# time while every core is free, instead of holding them until no other job runs: behind a long single-threaded
# job such a wait leaves the other cores idle. Everything else runs after them, side by side.
CLOCKED = 100
# Long jobs that use every core (independent chains over worker processes) get this `priority:`, so they start
# right after the clocked ones; the short single-threaded jobs then fill both cores to the end, instead of a
# wide job waiting for the last of them while a core idles.
WIDE = 50
# Long single-threaded jobs (half a minute or more, or the job a family's other jobs wait for) get this `priority:`:
# started early, beside the others, they never leave the run's last minute to one busy core (longest first).
LONG = 40
# Every rule family appends the claims file its summarise step writes; the table rule reads them all.
CLAIM_FILES = []
# The families skipped because their data set is absent ({family: data set}); their table rows read "needs data".
NEEDS_DATA = {}
# The data sets whose absence the default target announced at planning (said again when the run ends).
ANNOUNCED_ABSENT = []
# Every job reads its data set from the data directory resolved here (the environment variable, else the config
# key data_dir, else data/), so a data_dir given in a config file reaches the jobs as well.
os.environ[ENV_VAR] = str(data_dir(config.get("data_dir")).resolve())


def result(path):
    """A path under the results folder of this configuration (results/ or results/smoke/)."""
    return f"{RESULTS}/{path}"


def figure(path):
    """A path under the figures folder of this configuration (figures/ or figures/smoke/)."""
    return f"{FIGURES}/{path}"


def settings(*keys):
    """The JSON of a config slice, for --settings (quoted in shell commands with {params.settings:q})."""
    node = config
    for key in keys:
        node = node[key]
    return json.dumps(node, sort_keys=True)


def step_args(*keys, given=None):
    """A params function giving an experiment step everything it may read (see src/dogs/workflow/shell.py).

    ``--settings`` (the config slice at ``keys``; ``{}`` without keys; the dict ``given`` for a step whose settings
    are not a config slice), ``--seed``, ``--threads``, and every named input,
    output and wildcard of the rule as ``--input NAME=PATH``, ``--output NAME=PATH``,
    ``--wildcard NAME=VALUE``, quoted for the shell; ``--smoke`` on the smoke configuration.
    Use it as ``params: args=step_args("ising10")`` and ``shell: "... <step> {params.args} > {log} 2>&1"``.
    """
    slice_json = settings(*keys) if keys else json.dumps(given or {}, sort_keys=True)

    def args(wildcards, input, output, threads):
        parts = [
            "--settings",
            shlex.quote(slice_json),
            "--seed",
            str(config["root_seed"]),
            "--threads",
            str(threads),
        ]
        for option, named in (
            ("--input", input),
            ("--output", output),
            ("--wildcard", wildcards),
        ):
            for name, value in named.items():
                for item in [value] if isinstance(value, str) else value:
                    parts += [option, shlex.quote(f"{name}={item}")]
        if config["smoke"]:
            parts.append("--smoke")
        if (config.get("resources") or {}).get("max_memory_gb") is not None:
            parts += ["--max-memory-gb", str(config["resources"]["max_memory_gb"])]
        return " ".join(parts)

    return args


def step(family, name, *, given=None):
    """The params of an experiment step (the Snakefile's ``experiment_step`` template runs them): the step ``name``
    of module ``dogs.experiments.<family>`` and its arguments (``step_args``, the family's config slice, or the dict
    ``given``). Used as ``params: **step("ising10", "compute-guarantees")``.
    """
    args = step_args(given=given) if given is not None else step_args(family)
    return {"family": family, "step": name, "args": args}


def memory_mb(family):
    """``resources: mem_mb`` of a compute rule: the resource guard's estimate for one job of ``family``
    (the family's memory model, src/dogs/experiments/<family>.py) plus 500 MB for the interpreter and its libraries.
    """
    return int(sum(estimate_memory(family, config[family]).values()) / 2**20) + 500


def dataset_absent(name):
    """Whether none of data set ``name``'s files is in the data directory (an incomplete or corrupt one is present)."""
    return is_absent(name, config.get("data_dir"))


def data_claims(family, name, claims_file):
    """Register the claims file of a family that reads data set ``name``, or skip the family without it.

    Without a usable data set (absent, incomplete or failing its checksum) the paper-vs-ours table reads the family's
    rows as "needs data" (``NEEDS_DATA``), so that targets without the data experiments (``all_without_data``, or the
    default target when the data set is absent) never stop for it; a target that needs the data set stops at planning
    in the rule that reads it (``dataset``), with the checksum message when the data set is present but bad.
    """
    try:
        require_dataset(name, config.get("data_dir"))
    except DatasetMissingError:
        NEEDS_DATA[family] = name
    else:
        CLAIM_FILES.append(claims_file)


def if_data_present(name, *targets):
    """An input function for the default target: ``targets`` (lists of files) when data set ``name`` is present.

    When it is absent the targets are left out and a notice says what they need and where to get and put it, once,
    when the default target is planned (dry runs included); ``announce_absent_data`` repeats it when the run ends.
    A corrupt data set is present: its targets stay, and planning stops with the checksum message.
    """

    def inputs(wildcards):
        if not dataset_absent(name):
            return [path for group in targets for path in group]
        if name not in ANNOUNCED_ABSENT:
            ANNOUNCED_ABSENT.append(name)
            logger.warning(absent_notice(name, config.get("data_dir")))
        return []

    return inputs


def announce_absent_data():
    """Repeat, at the end of a run of the default target, the notice of every data set it went without."""
    for name in ANNOUNCED_ABSENT:
        logger.warning(absent_notice(name, config.get("data_dir")))


def dataset(name):
    """The folder of a data set; stops the workflow at once with instructions when it is missing."""
    try:
        return str(require_dataset(name, config.get("data_dir")))
    except DatasetMissingError as exc:
        raise WorkflowError(str(exc)) from None


def caption(text):
    """A report caption given as text (reStructuredText, a Jinja template over ``snakemake``, as Snakemake renders
    captions): ``report(path, caption=caption("Regenerates ..."), ...)``. Snakemake reads captions from files, so the
    text is written, when the rules are read, to ``.snakemake/captions/<hash of the text>.rst`` in the working
    directory (Snakemake's own folder, ignored by git), and that file's path is returned.
    """
    folder = os.path.abspath(os.path.join(".snakemake", "captions"))
    path = os.path.join(folder, f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.rst")
    if not os.path.isfile(path):
        os.makedirs(folder, exist_ok=True)
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "w", encoding="utf-8") as handle:
            print(text, file=handle)
        os.replace(partial, path)
    return path


# Every named target the rules files declare with `target`: name -> (the data set it needs or None, whether the
# aggregate targets include it).
TARGETS = {}


def target(name, needs=None, in_all=True):
    """Declare the target rule ``name``, defined just above the call with a docstring saying what it makes.

    The Snakefile's aggregate targets are made of the declared targets: ``needs`` is the data set of the data
    directory the target reads (``all_without_data`` leaves it out, ``all`` includes it when the data set is
    present), ``in_all=False`` leaves it out of every aggregate. The figure index (docs/generated/figure-index.md)
    lists every declared target with its docstring.
    """
    TARGETS[name] = (needs, in_all)


def aggregated(needs):
    """The declared targets of the aggregates that need no data set (``needs=None``) or one of ``needs``."""
    return [
        name
        for name, (data, in_all) in TARGETS.items()
        if in_all and (data is None if needs is None else data in needs)
    ]


def data_sets():
    """The data sets the declared targets need, in the order they were declared."""
    return list(dict.fromkeys(data for data, _ in TARGETS.values() if data is not None))


def target_inputs(names):
    """Every input file of the target rules ``names``."""
    return [path for name in names for path in getattr(rules, name).input]
