"""The footer: Textual's, showing only the keys that fit whole (a narrow terminal cut the last
one mid-word, "e Expor"); the keys it leaves out are in the help (``?``) and the palette."""

from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class FittingFooter(Footer):
    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        for key in self.query(FooterKey):
            key.display = True  # a wider terminal has room again: lay every key out, then fit
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Hide the first key that does not fit whole and every key after it (the keys come in
        the order of the bindings, the most useful first)."""
        right = self.content_region.right
        overflow = False
        for key in self.query(FooterKey):
            overflow = overflow or key.region.right > right
            if key.display == overflow:
                key.display = not overflow
