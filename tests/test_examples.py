"""Every example script runs and checks its result, and every demo runs from the command line."""

import pathlib
import runpy

import pytest

from mechsolve import cli
from mechsolve.models import DEMOS

EXAMPLES = sorted((pathlib.Path(__file__).parent.parent / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path, capsys):
    """Each example asserts its result against an independent truth (a closed form, a
    published figure, a geometric invariant) and prints the figure on a line "check: ...";
    and it shows something: it leaves a figure (the gallery's still) or an animation (played
    on its gallery page), every figure with something drawn in it."""
    import matplotlib.pyplot as plt
    from matplotlib.animation import Animation

    plt.close("all")
    try:
        names = runpy.run_path(str(path), run_name="__main__")
        out = capsys.readouterr().out
        assert any(line.startswith("check: ") for line in out.splitlines()), (
            f"{path.name} printed no 'check: ' line: every example checks its result")
        figures = [plt.figure(n) for n in plt.get_fignums()]
        assert figures, f"{path.name} leaves no figure: its gallery page would show no picture"
        for fig in figures:
            assert any(ax.has_data() for ax in fig.axes), f"{path.name}: an empty figure"
        for anim in (v for v in names.values() if isinstance(v, Animation)):
            assert anim._fig in figures
            anim._init_draw()  # rendered, as the gallery does (no warning when collected)
    finally:
        plt.close("all")


@pytest.mark.parametrize("name", list(DEMOS))
def test_cli_demo(name, capsys):
    assert cli.main(["demo", name, "--rows", "5", "--no-animation"]) == 0
    out = capsys.readouterr().out
    assert "poses solved in" in out and "residual" in out
    assert "Gruebler count" in out
    assert "wrote" not in out


def test_cli_demo_writes_a_gif_by_default(tmp_path, monkeypatch, capsys):
    from PIL import Image

    monkeypatch.chdir(tmp_path)
    assert cli.main(["demo", "fourbar", "--rows", "3"]) == 0
    out = capsys.readouterr().out
    gif = tmp_path / "fourbar.gif"
    assert f"to {gif.resolve()}" in out and "poses solved in" in out
    with Image.open(gif) as im:
        assert im.format == "GIF" and im.n_frames == 120


def test_cli_demo_output_plot_and_progress(tmp_path, capsys):
    from PIL import Image

    gif, png = tmp_path / "sc.gif", tmp_path / "sc.png"
    assert cli.main(["demo", "slider-crank", "--rows", "2", "--output", str(gif), "--plot",
                     str(png), "--frames", "4", "--dpi", "30", "--progress"]) == 0
    captured = capsys.readouterr()
    assert str(png.resolve()) in captured.out and str(gif.resolve()) in captured.out
    # the tqdm bars, left at their end: every pose swept, every frame rendered
    assert "sweeping" in captured.err and "361/361" in captured.err
    assert "rendering sc.gif" in captured.err and "4/4" in captured.err
    with Image.open(gif) as im:
        assert im.n_frames == 4
    with Image.open(png) as im:
        assert im.format == "PNG"
    # a video format without ffmpeg is an error after the table, not a crash
    from matplotlib import animation

    if not animation.writers.is_available("ffmpeg"):
        assert cli.main(["demo", "fourbar", "--rows", "2", "-o", str(tmp_path / "x.mp4"),
                         "--frames", "2"]) == 1
        assert "ffmpeg" in capsys.readouterr().err


def test_cli_list_help_and_errors(capsys):
    assert cli.main(["demo", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in DEMOS)
    assert cli.main([]) == 0
    assert "demo" in capsys.readouterr().out
    assert cli.main(["demo", "nonesuch"]) == 2
    assert "unknown demo 'nonesuch'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    with pytest.raises(SystemExit):
        cli.main(["demo", "fourbar", "--no-animation", "--output", "x.gif"])


def test_cli_output_that_is_not_an_animation_is_refused_before_solving(capsys):
    with pytest.raises(SystemExit) as err:
        cli.main(["demo", "fourbar", "-o", "x.png"])
    assert err.value.code == 2
    message = capsys.readouterr().err
    assert "--output x.png: an animation needs a .gif, .webp, .mp4 or .html file name; " \
           "for a still picture use --plot x.png" in message
    assert "writer=" not in message and "poses solved" not in message


def test_cli_demo_list_speaks_of_mechanisms_not_parameters(capsys):
    assert cli.main(["demo", "--list"]) == 0
    out = capsys.readouterr().out
    assert "parallelogram" in out and "slider-crank-3d" in out
    for name in ("n_cranks", "offset[", "``"):
        assert name not in out, name
