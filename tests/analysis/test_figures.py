"""The one PNG helper: what the UI gets is a data URI, never a path, and never wider than its dialog."""

import base64
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from PIL import Image  # noqa: E402

from rl_assets.analysis.render.figures import UI_IMAGE_MAX_PX, figure_png, markdown_image  # noqa: E402


def _decode(markdown: str) -> Image.Image:
    assert markdown.startswith("![") and "](data:image/png;base64," in markdown and markdown.endswith(")")
    return Image.open(io.BytesIO(base64.b64decode(markdown.split("base64,", 1)[1][:-1])))


def test_wide_figure_is_scaled_to_fit_the_ui_and_the_report_keeps_full_size():
    fig, ax = plt.subplots(figsize=(18, 4))
    ax.plot([0, 1], [0, 1])
    png = figure_png(fig, tight=False)
    assert not plt.get_fignums()  # closed
    assert Image.open(io.BytesIO(png)).width == 18 * 110
    shown = _decode(markdown_image("wide [plot]", png))
    assert shown.width == UI_IMAGE_MAX_PX and shown.height == round(4 * 110 * UI_IMAGE_MAX_PX / (18 * 110))


def test_small_figure_is_embedded_unchanged():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar([0, 1], [1, 2])
    png = figure_png(fig, dpi=100, tight=False)
    md = markdown_image("small", png)
    assert base64.b64decode(md.split("base64,", 1)[1][:-1]) == png
