"""The one way from a matplotlib figure to PNG bytes, and from PNG bytes to a markdown image.

Every report plot goes through `figure_png`; every plot shown in the Dagster UI goes through
`markdown_image`. The UI renders markdown metadata with the image *inside* the event (a
`data:image/png;base64,...` URI): a relative or file path would resolve against the webserver
and show as a broken image.
"""

from __future__ import annotations

import base64
import io
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def pyplot() -> ModuleType:
    """matplotlib.pyplot on the file-only Agg backend, imported on first use: it costs about half a
    second, which loading the Dagster definitions (webserver, daemon, every run) should not pay."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figure_png(fig: Figure, *, dpi: int = 110, tight: bool = True) -> bytes:
    """Render `fig` to PNG bytes and close it (figures left open leak memory across a run)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight" if tight else None)
    finally:
        plt.close(fig)
    return buf.getvalue()


def png_data_uri(png: bytes) -> str:
    """A PNG as a data URI.

    >>> png_data_uri(b"\\x89PNG")
    'data:image/png;base64,iVBORw=='
    """
    if not isinstance(png, (bytes, bytearray)) or not png:
        raise ValueError("png_data_uri needs the non-empty bytes of a PNG")
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


# The UI shows markdown metadata in a dialog about 980 px wide and does not scale images down
# (it renders no HTML, so no width attribute either): a wider PNG would be cut off there.
UI_IMAGE_MAX_PX = 960


def fit_width(png: bytes, max_px: int = UI_IMAGE_MAX_PX) -> bytes:
    """The PNG scaled down to at most `max_px` wide (unchanged when it already fits)."""
    from PIL import Image  # matplotlib's own dependency

    with Image.open(io.BytesIO(png)) as img:
        if img.width <= max_px:
            return png
        small = img.resize((max_px, max(1, round(img.height * max_px / img.width))), Image.Resampling.LANCZOS)
        buf = io.BytesIO()
        small.save(buf, format="PNG", optimize=True)
        return buf.getvalue()


def ui_image_uri(png: bytes) -> str:
    """What to put in ![](…) of markdown metadata: the PNG itself, sized for the UI's dialog."""
    return png_data_uri(fit_width(png))


def markdown_image(alt: str, png: bytes) -> str:
    """A markdown image that carries its own pixels, sized for the UI; brackets in `alt` cannot end it early."""
    safe = str(alt).replace("[", "(").replace("]", ")").replace("\n", " ")
    return f"![{safe}]({ui_image_uri(png)})"


def markdown_images(pngs: dict[str, bytes]) -> str:
    """Several plots in one markdown entry, each under its name (one UI entry per asset, not per file)."""
    return "\n\n".join(f"**{name}**\n\n{markdown_image(name, png)}" for name, png in pngs.items())
