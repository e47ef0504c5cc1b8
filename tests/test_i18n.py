"""The language catalogues (docs/i18n.md): complete, in step with the code, and well formed.

- The committed templates (messages.pot, js.pot) hold exactly the strings the code marks: a string
  marked without running `scripts/i18n extract` fails here.
- Every string of them has a German and a Polish translation (every plural form), none fuzzy.
- Each translation keeps its source's placeholders ({name}, %(name)s), so that no message loses a
  value or breaks its formatting.
- The language of a request: Accept-Language negotiation by q-values; the context variable.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from lordsofwar import i18n
from lordsofwar.rules.state import Result, Termination

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "lordsofwar" / "locale"
LANGS = ("de", "pl")
DOMAINS = ("messages", "js")
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(?:![rsa])?(?::[^{}]*)?\}|%\([A-Za-z_]+\)[sd]")


def _read(path: Path) -> Catalog:
    with open(path, "rb") as f:
        return read_po(f)


def _ids(catalogue: Catalog) -> set[object]:
    return {m.id if isinstance(m.id, str) else tuple(m.id) for m in catalogue if m.id}


def _placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text))


@pytest.mark.parametrize("domain", DOMAINS)
def test_templates_hold_exactly_what_the_code_marks(domain: str, tmp_path: Path) -> None:
    pybabel = Path(sys.executable).with_name("pybabel")
    assert pybabel.exists(), "Babel's pybabel is installed with the package"
    out = tmp_path / f"{domain}.pot"
    if domain == "messages":
        args = [
            "-F",
            "babel.cfg",
            "-k",
            "_",
            "-k",
            "N_",
            "-k",
            "gettext",
            "-k",
            "ngettext:1,2",
            str(ROOT / "lordsofwar"),
        ]
    else:
        args = [
            "-F",
            "babel-js.cfg",
            "-k",
            "_",
            "-k",
            "ngettext:1,2",
            "-k",
            "pgettext:1c,2",
            str(ROOT / "lordsofwar" / "web" / "static"),
        ]
    subprocess.run([str(pybabel), "-q", "extract", *args, "-o", str(out)], cwd=ROOT, check=True)
    fresh, committed = _ids(_read(out)), _ids(_read(LOCALE / f"{domain}.pot"))
    assert fresh - committed == set(), f"marked but not in {domain}.pot: run scripts/i18n extract"
    assert committed - fresh == set(), f"in {domain}.pot but no longer marked: run scripts/i18n extract"
    if domain == "js":
        assert not [m for m in fresh if "${" in str(m)], "a template literal inside _(): use {name} placeholders"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_string_has_a_translation_with_the_same_placeholders(lang: str, domain: str) -> None:
    template = _read(LOCALE / f"{domain}.pot")
    po = _read(LOCALE / lang / "LC_MESSAGES" / f"{domain}.po")
    assert _ids(po) >= _ids(template), f"{lang}/{domain}.po lacks strings of the template: run scripts/i18n extract"
    forms = 3 if lang == "pl" else 2
    missing, fuzzy, broken = [], [], []
    for m in po:
        if not m.id:
            continue
        if m.fuzzy:
            fuzzy.append(m.id)
        if isinstance(m.id, str):
            if not m.string:
                missing.append(m.id)
            elif not isinstance(m.string, str) or _placeholders(m.id) != _placeholders(m.string):
                broken.append((m.id, m.string))
        else:
            assert isinstance(m.string, (list, tuple)), m.id  # a plural message has one string per form
            strings = list(m.string)
            if len(strings) != forms or not all(strings):
                missing.append(m.id[0])
                continue
            wanted = _placeholders(m.id[1])
            for s in strings:
                got = _placeholders(s)
                # a singular form may leave the count out ("one game"); it may not add a placeholder
                if not set(got) <= set(wanted) or (s is not strings[0] and got != wanted):
                    broken.append((m.id[1], s))
    assert not missing, f"{len(missing)} strings without a {lang} translation in {domain}.po, e.g. {missing[:5]}"
    assert not fuzzy, f"fuzzy (unchecked) {lang} translations in {domain}.po: {fuzzy[:5]}"
    assert not broken, f"{lang} translations whose placeholders differ from the source: {broken[:5]}"


RULE_WORDS = {
    "de": {
        "army": {"dwarves": "Zwerg", "orcs": "Ork"},
        "rank": {"recruit": "Rekrut", "command": "Kommandant", "special": "Spezial", "regular": "Normal"},
    },
    "pl": {
        "army": {"dwarves": "Krasnolud", "orcs": "Ork"},
        "rank": {
            "recruit": "Rekrut",
            "command": "Dowódc",
            "special": "Specjalist",
            "regular": "Szeregow",
            "elite": "Elit",
        },
    },
}
"""Stems of the rules' own words: the German rules text and the Polish rulebook."""


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_vocabulary_is_the_rule_texts(lang: str) -> None:
    texts = {"de": "yucata-rules-de.txt", "pl": "rulebook-pl.txt"}
    rules = ROOT.parent / "shared" / "rules" / texts[lang]
    text = rules.read_text(encoding="utf-8").lower() if rules.exists() else None
    with i18n.use(lang):
        for kind, words in RULE_WORDS[lang].items():
            name = i18n.army_name if kind == "army" else i18n.rank_name
            for key, stem in words.items():
                assert name(key).startswith(stem), (lang, key, name(key))
                if text is not None:
                    assert stem.lower() in text, (lang, stem)


def test_a_catalogue_without_its_compiled_file_is_read_from_the_po(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "locale"
    shutil.copytree(LOCALE, copy, ignore=shutil.ignore_patterns("*.mo"))
    monkeypatch.setattr(i18n, "LOCALE_DIR", copy)
    i18n.translations.cache_clear()
    try:
        with i18n.use("de"):
            assert i18n.gettext("Sign in") != "Sign in"
            assert i18n.gettext("Sign in") == i18n.translations("de").gettext("Sign in")
    finally:
        i18n.translations.cache_clear()


def test_polish_has_three_plural_forms() -> None:
    with i18n.use("pl"):
        forms = [
            i18n.ngettext("{n} unit eliminated", "{n} units eliminated", n).format(n=n) for n in (1, 3, 5, 12, 22, 25)
        ]
    assert len({f.replace(str(n), "N") for f, n in zip(forms, (1, 3, 5, 12, 22, 25), strict=True)}) == 3, forms
    assert forms[1].replace("3", "N") == forms[4].replace("22", "N")  # 3 and 22: the same form
    assert forms[2].replace("5", "N") == forms[3].replace("12", "N") == forms[5].replace("25", "N")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("en-US,en;q=0.9,pl;q=0.8", "en"),
        ("fr-FR, pl;q=0.5, de;q=0.4", "pl"),
        ("fr, it", None),
        ("de;q=0, pl", "pl"),
        ("*", None),
        ("", None),
        ("x" * 10_000, None),
        ("de;q=abc, pl;q=0.1", "pl"),
        ("PL", "pl"),
    ],
)
def test_accept_language(header: str, expected: str | None) -> None:
    assert i18n.negotiate(header) == expected


def test_the_language_is_per_context_and_english_outside() -> None:
    assert i18n.current() == "en"
    with i18n.use("pl"):
        assert i18n.current() == "pl"
        with i18n.use("fr"):  # unknown: English
            assert i18n.current() == "en"
        assert i18n.current() == "pl"
    assert i18n.current() == "en"
    assert i18n.gettext("Lobby") == "Lobby"


def test_the_browser_catalogue_is_complete() -> None:
    # keyed by the singular, and a message with a context by "context\x04msgid" (js/i18n.js pgettext)
    keys = {
        (f"{m.context}\x04" if m.context else "") + (m.id if isinstance(m.id, str) else m.id[0])
        for m in _read(LOCALE / "js.pot")
        if m.id
    }
    for lang in LANGS:
        cat = i18n.js_catalogue(lang)
        assert set(cat) == keys, lang
        assert all(isinstance(v, str) or len(v) == (3 if lang == "pl" else 2) for v in cat.values())


def _results() -> list[Result]:
    """A result of every termination, with every threshold and every ending an abort stands for."""
    T = Termination
    out = [
        Result(1, T.UNITS, count=20),
        Result(2, T.COMMANDS, count=4),
        Result(1, T.BOTH_COMMAND_THRESHOLD),
        Result(None, T.NO_PROGRESS, count=40),
        Result(None, T.NO_ACTION),
        Result(2, T.RESIGNATION, player=1),
        Result(1, T.TIMEOUT, player=2),
        Result(2, T.DEADLINE, player=1),
        Result(None, T.DRAW_AGREED),
        Result(None, T.ABORTED, player=2),
        Result(None, T.ABORTED, ending=T.DRAW_AGREED),
    ]
    for threshold in (T.UNITS, T.COMMANDS):
        out += [Result(1, T.MORE_UNITS, threshold=threshold), Result(2, T.MORE_COMMANDS, threshold=threshold)]
        out.append(Result(None, T.EQUAL, threshold=threshold))
    out += [Result(None, T.ABORTED, player=1, ending=e) for e in (T.RESIGNATION, T.TIMEOUT, T.DEADLINE)]
    assert {r.termination for r in out} == set(T)
    return out


def test_every_ending_of_the_engine_has_a_sentence() -> None:
    results = _results()
    for lang in LANGS:
        with i18n.use(lang):
            sentences: set[str] = set()
            for result in results:
                said = i18n.result_reason(result, {1: "alice", 2: "bob"})
                assert said != result.reason, (lang, result)
                assert "player 1" not in said and "player 2" not in said
                assert i18n.result_reason(result.to_json(), {1: "alice", 2: "bob"}) == said
                sentences.add(said)
            assert len(sentences) == len(results), lang  # no two endings read the same
    with i18n.use("en"):
        assert i18n.result_reason(Result(2, Termination.RESIGNATION, player=1)) == "player 1 resigned"
        assert i18n.result_reason(
            Result(None, Termination.ABORTED, player=1, ending=Termination.TIMEOUT), {1: "al"}
        ) == ("game aborted: al ran out of time")
        assert i18n.result_reason({"winner": 1, "reason": "an ending without a code"}) == "an ending without a code"
        assert i18n.result_reason(None) == ""
    # every sentence result_reason says (an aborted game's too) is the browser's
    js = (ROOT / "lordsofwar" / "web" / "static" / "js" / "i18n.js").read_text(encoding="utf-8")
    source = (ROOT / "lordsofwar" / "i18n.py").read_text(encoding="utf-8")
    table = source[source.index("def _more(") : source.index("def babel_locale")]
    table_sentences = re.findall(r'gettext\("([^"]+)"', table)
    assert "{player} aborted the game" in table_sentences and "game aborted: {reason}" in table_sentences
    assert len(table_sentences) >= 18
    assert [s for s in table_sentences if f"'{s}'" not in js] == [], "static/js/i18n.js lacks these reasons"
    assert "RegExp" not in js[js.index("export function reasonText") :]  # the browser reads the code too


def test_scores_are_written_as_the_language_writes_numbers() -> None:
    values = (0.0, 1.5, 3, 12.25, None)
    with i18n.use("en"):
        assert [i18n.number(v) for v in values] == ["0.0", "1.5", "3", "12.25", ""]
    for lang in LANGS:
        with i18n.use(lang):
            assert [i18n.number(v) for v in values] == ["0,0", "1,5", "3", "12,25", ""]


def test_no_marked_string_hides_where_the_extractor_cannot_see_it() -> None:
    """pybabel reads neither Python f-strings nor JavaScript template literals: a _() inside one
    never reaches the catalogue and stays English in every language."""
    found = []
    for path in (ROOT / "lordsofwar").rglob("*.py"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"""\bf(["'])[^"']*\{\s*(?:_|ngettext|gettext)\(""", line):
                found.append(f"{path.relative_to(ROOT)}:{n}")
    for path in (ROOT / "lordsofwar" / "web" / "static").rglob("*.js"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"`[^`]*\$\{[^`]*\b(?:_|ngettext)\(", line):
                found.append(f"{path.relative_to(ROOT)}:{n}")
    assert not found, found


def test_every_string_the_scripts_mark_is_in_their_catalogue() -> None:
    """Every literal the scripts pass to _() or ngettext() is in js.pot: pybabel's JavaScript reader
    does not see a call inside another call's arguments, so such a string would stay English."""
    template = {m.id if isinstance(m.id, str) else m.id[0] for m in _read(LOCALE / "js.pot") if m.id}
    call = re.compile(r"""(?<![\w.$])(?:_|ngettext)\(\s*(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)")""")
    missing = []
    for path in (ROOT / "lordsofwar" / "web" / "static").rglob("*.js"):
        for m in call.finditer(path.read_text(encoding="utf-8")):
            text = m.group(1) if m.group(1) is not None else m.group(2)
            text = text.replace("\\'", "'").replace('\\"', '"')
            if "\\" not in text and text not in template:
                missing.append((path.name, text))
    assert len(template) > 400 and not missing, missing
