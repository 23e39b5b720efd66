"""Calibration that cannot lie: ``python -m dogs.experiments calibrate`` measures the rates of the family files only
from the benchmark files of a complete run, and refuses, with the reason, a folder of a partial run (where it once
printed an overhead no job had and rates many times too low). Synthetic benchmark files, no run."""

from __future__ import annotations

import pytest

from dogs.experiments import FAMILIES
from dogs.experiments.__main__ import main
from dogs.workflow.cost import CalibrationError, calibrate, configured
from dogs.workflow.families import family_files
from experiment_cli import ROOT, merged_configs

FULL, SMOKE = merged_configs()
MEASURED = {rule for data in family_files(ROOT).values() for rule in data.get("rates") or {}}


def _benchmark_folder(folder, config, cpu=lambda rule, i: 2.0 + i):
    """One benchmark file per job of every compute rule of ``config`` that calibrate measures, with CPU seconds
    ``cpu(rule, job index)``, named as the rules name them; ``{rule: [files]}``."""
    (folder / "snakemake").mkdir(parents=True)
    files: dict[str, list] = {}
    for family, settings in configured(config, FAMILIES):
        for work in family.estimate_work(settings):
            if work.rule not in MEASURED:
                continue
            mine = files.setdefault(work.rule, [])
            names = work.benchmark_names or [f"{work.rule.replace(':', '_')}_{len(mine) + i}" for i in range(work.jobs)]
            for name in names:
                path = folder / "snakemake" / f"{name}.tsv"
                path.write_text(f"s\tcpu_time\n1.0\t{cpu(work.rule, len(mine))}\n")
                mine.append(path)
    return files


def test_a_complete_run_gives_every_measured_rate_from_all_of_its_jobs(tmp_path):
    files = _benchmark_folder(tmp_path, SMOKE)
    paths = [p for group in files.values() for p in group]
    overhead, rates = calibrate(paths, SMOKE, FAMILIES, MEASURED)
    assert overhead == 2.0  # the least CPU time of any job
    works = [w for family, settings in configured(SMOKE, FAMILIES) for w in family.estimate_work(settings)]
    assert set(rates) == {w.rule for w in works} & MEASURED
    for rule, rate in rates.items():
        mine = [w for w in works if w.rule == rule]
        seconds = sum(2.0 + i for i in range(len(files[rule])))
        fixed = sum(w.jobs * overhead + w.seconds for w in mine)
        assert rate == pytest.approx(max(seconds - fixed, 0.05 * seconds) / sum(w.units for w in mine))


def test_a_partial_run_is_refused_with_the_reason(tmp_path, capsys):
    files = _benchmark_folder(tmp_path, SMOKE)
    rule = next(rule for rule, group in files.items() if len(group) >= 3)
    files[rule][0].unlink()
    for other in ("benchmark_dogs", "timing_compute_epsilon"):
        for path in files[other]:
            path.unlink()
    paths = sorted(tmp_path.rglob("*.tsv"))
    with pytest.raises(CalibrationError) as error:
        calibrate(paths, SMOKE, FAMILIES, MEASURED)
    message = str(error.value)
    assert f"{rule} has the benchmark files of {len(files[rule]) - 1} of its {len(files[rule])} jobs" in message
    assert "no benchmark file of 2 compute rules (benchmark_dogs, timing_compute_epsilon)" in message
    # the command line says so and exits with status 2, printing no rate
    assert main(["calibrate", str(tmp_path), str(ROOT / "config" / "config.yaml"),
                 str(ROOT / "config" / "smoke.yaml")]) == 2
    out, err = capsys.readouterr()
    assert "rates:" not in out and "not those of a complete run" in err


def test_a_job_without_a_cpu_time_is_refused(tmp_path):
    files = _benchmark_folder(tmp_path, SMOKE)
    files["benchmark_gibbs"][0].write_text("s\tcpu_time\n1.0\tNA\n")
    with pytest.raises(CalibrationError, match="benchmark_gibbs_0.tsv records no CPU time"):
        calibrate(sorted(tmp_path.rglob("*.tsv")), SMOKE, FAMILIES, MEASURED)


def test_another_configs_run_is_partial_for_this_one(tmp_path):
    """The smoke run's folder calibrated as if it were the paper-scale run: jobs of the paper scale are missing."""
    _benchmark_folder(tmp_path, SMOKE)
    with pytest.raises(CalibrationError, match="of its 10 jobs"):  # ising10: 4 smoke replicates of 10
        calibrate(sorted(tmp_path.rglob("*.tsv")), FULL, FAMILIES, MEASURED)


def test_one_family_is_calibrated_from_a_run_of_its_own_and_refused_when_partial(tmp_path, capsys):
    """``--family``: the rates of one family from a complete run of that family alone, with the shipped overhead;
    its own missing job is still refused."""
    from dogs.workflow.cost import JOB_OVERHEAD_SECONDS

    files = _benchmark_folder(tmp_path, SMOKE)
    for rule, group in files.items():  # leave the ising10 family's files only
        if not rule.startswith("ising10_"):
            for path in group:
                path.unlink()
    configs = [str(ROOT / "config" / "config.yaml"), str(ROOT / "config" / "smoke.yaml")]
    assert main(["calibrate", str(tmp_path), *configs]) == 2  # a partial run of the whole config
    capsys.readouterr()
    assert main(["calibrate", str(tmp_path), *configs, "--family", "ising10"]) == 0
    out, _ = capsys.readouterr()
    assert "config/families/ising10.yaml" in out and "ising10_compute_guarantees" in out
    assert "JOB_OVERHEAD_SECONDS" not in out and "ising40" not in out
    ising10 = [f for f in FAMILIES if f.config_section == "ising10"]
    overhead, _ = calibrate(sorted(tmp_path.rglob("*.tsv")), SMOKE, ising10, MEASURED, JOB_OVERHEAD_SECONDS)
    assert overhead == JOB_OVERHEAD_SECONDS
    files["ising10_compute_guarantees"][0].unlink()
    assert main(["calibrate", str(tmp_path), *configs, "--family", "ising10"]) == 2
    with pytest.raises(SystemExit):
        main(["calibrate", str(tmp_path), *configs, "--family", "no_such_family"])
