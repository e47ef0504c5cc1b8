"""Finding words on a page that no catalogue holds (docs/i18n.md).

The test language ``qps`` (LOW_I18N_PSEUDO=1) shows every catalogued string in ⟦ ⟧. What is left
of a page's text once those are taken out must be data (names, numbers, squares, card ids, card
names, dates): any other word was written without _() and would stay English in German and
Polish.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from lordsofwar.rules.cards import CORE

MARKED = re.compile(r"⟦[^⟦⟧]*⟧")
ATTRS = ("title", "aria-label", "placeholder", "alt", "aria-description", "data-tip")
SKIP = {"script", "style", "code", "pre", "kbd", "samp", "template"}
DATA = [
    re.compile(r"https?://\S+"),
    re.compile(r"\b[a-z]+:\d{2}\b"),  # card ids
    re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?(?: ?UTC)?\b"),  # dates
    re.compile(r"\b[a-g][1-7]\b"),  # squares
    re.compile(r"\blow_[A-Za-z0-9_-]+\b"),  # API tokens
    re.compile(r"\b(?:bot:play|challenge:write)\b"),  # the bot API's scopes
    re.compile(r"\b(?:FL|FR|BL|BR|F|B|L|R)\b"),  # the arrows' directions, as the cards print them
    re.compile(r"^# name:", re.M),  # a deck file's own syntax (an example in a placeholder)
    # dates Babel writes in the page's language (the test language: English month names)
    re.compile(r"\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|"
               r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b"),
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})? ?(?:AM|PM)\b"),  # a time the browser writes (the test language: en-US)
    re.compile(r"\b(?:GET|POST|PUT|DELETE|PATCH)\b"),  # a request's method and path, as sent
    re.compile(r"(?<![\w/])/[a-z0-9_/.-]+"),
    re.compile(r"\b\d+(?:[.,]\d+)?\b"),
]
ALWAYS = {"Lords of War", "qps", "English", "Deutsch", "Polski", "Elo", "API", "OpenAPI", "ndjson", "CSRF", "UTC", "SMTP"}


def _card_names() -> list[str]:
    return sorted({c.name for c in CORE.values()}, key=len, reverse=True)


CARD_NAMES = _card_names()


def leftover(text: str, data: set[str]) -> list[str]:
    """The words of ``text`` that are neither catalogued (⟦ ⟧) nor data."""
    prev = None
    while prev != text:
        prev, text = text, MARKED.sub(" ", text)
    # a catalogued sentence split around an element (a count in a pill, a link): its pieces
    text = re.sub(r"⟦[^⟧]*$", " ", re.sub(r"^[^⟦]*⟧", " ", text))
    for name in sorted(set(data) | ALWAYS, key=len, reverse=True):
        if name:
            text = text.replace(name, " ")
    for name in CARD_NAMES:
        if name in text:
            text = text.replace(name, " ")
    for pattern in DATA:
        text = pattern.sub(" ", text)
    return re.findall(r"[A-Za-zÀ-ž]{2,}", text)


INLINE = {"b", "i", "em", "strong", "a", "span", "time", "small", "abbr", "u", "s", "sup", "sub", "mark", "q"}
"""Tags inside a sentence: a catalogued sentence with <b>…</b> in it is one text here."""


class _Texts(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.buf: list[str] = []

    def flush(self) -> None:
        text = "".join(self.buf)
        if text.strip():
            self.out.append(text)
        self.buf = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for name in ATTRS:
            if a.get(name):
                self.out.append(str(a[name]))
        if tag == "input" and a.get("type") in ("submit", "button") and a.get("value"):
            self.out.append(str(a["value"]))
        if tag in SKIP:
            self.skip += 1
            self.buf.append(" ")
        elif tag not in INLINE:
            self.flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIP and self.skip:
            self.skip -= 1
        elif tag not in INLINE:
            self.flush()

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.buf.append(data)

    def close(self) -> None:
        super().close()
        self.flush()


def html_texts(html: str) -> list[str]:
    """The texts a reader meets in ``html``: text nodes (not scripts or code) and the attributes
    that are read out or shown (title, aria-label, placeholder, alt, button values)."""
    p = _Texts()
    p.feed(html)
    p.close()
    return p.out


def uncatalogued(texts: list[str], data: set[str]) -> list[tuple[str, list[str]]]:
    found = []
    for t in texts:
        words = leftover(t, data)
        if words:
            found.append((t.strip()[:120], words))
    return found


BROWSER_TEXTS = """() => {
  const out = [document.title];
  const skip = new Set(['SCRIPT', 'STYLE', 'CODE', 'PRE', 'KBD', 'SAMP', 'TEMPLATE']);
  const INLINE = new Set(INLINE_JSON);
  // the whole text of each element holding text: a sentence cut around a card or a count (a
  // node in the middle) is whole there, its ⟦ ⟧ included
  const textOf = (e) => Array.from(e.childNodes).map((c) => (c.nodeType === 3 ? c.textContent
    : c.nodeType === 1 && !skip.has(c.tagName) ? textOf(c) : ' ')).join('');
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    let e = n.parentElement;
    while (e && INLINE.has(e.tagName) && e.parentElement && e.parentElement !== document.body) e = e.parentElement;
    if (!e || seen.has(e) || !n.textContent.trim()) continue;
    let skipped = false;
    for (let p = e; p; p = p.parentElement) if (skip.has(p.tagName)) { skipped = true; break; }
    seen.add(e);
    if (!skipped) out.push(textOf(e));
  }
  for (const e of document.body.querySelectorAll('*')) {
    for (const a of ATTRS_JSON) { const v = e.getAttribute(a); if (v) out.push(v); }
    if (e.tagName === 'INPUT' && (e.type === 'submit' || e.type === 'button') && e.value) out.push(e.value);
  }
  return out;
}""".replace("ATTRS_JSON", json.dumps(list(ATTRS))).replace("INLINE_JSON", json.dumps([t.upper() for t in sorted(INLINE)]))
"""A function for page.evaluate: the same texts as html_texts, from the live DOM."""


def check(label: str, texts: list[str], data: set[str], problems: list[str]) -> None:
    for text, words in uncatalogued(texts, data):
        problems.append(f"{label}: {words} in {text!r}")


__all__: list[Any] = ["BROWSER_TEXTS", "check", "html_texts", "leftover", "uncatalogued"]
