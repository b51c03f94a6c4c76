"""Q3 — do the changes persist into the post-RL eval traces? Same-task trace pairs (``pairs``,
``pairs_align``) and their HTML page (``pairs_html``, ``pairs_message_html``, ``pairs_page_assets``),
and the eval-over-RL-time overlay (``overlay``)."""
