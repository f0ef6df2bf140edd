"""Extract plain text from uploaded files.

Every format comes out as plain text in which headings are markdown ``#`` lines, so
one chunker serves them all. Anything that cannot be read raises ``IngestError``
whose message is written for the person who uploaded the file.
"""

from __future__ import annotations

import codecs
import io
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

import docx
import lxml.html
import pypdf
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.table import Table, _Cell
from docx.text.paragraph import Paragraph
from lxml import etree


class IngestError(Exception):
    """A file could not be turned into text; ``message`` is safe to show the uploader."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ParsedDocument:
    """Text extracted from one file.

    ``title_hint`` is a title found inside the file (HTML ``<title>``, document
    metadata, first heading); ``None`` tells the caller to fall back to the file name.
    ``language`` is a ``detect_language`` code, ``"und"`` when unsure.
    """

    text: str
    title_hint: str | None = None
    language: str = "und"


_EXTENSIONS = {
    ".txt": "text",
    ".text": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
}
_CONTENT_TYPES = {
    "text/plain": "text",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
}
SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(sorted(_EXTENSIONS))
_SUPPORTED_LIST = ", ".join(SUPPORTED_EXTENSIONS)


def extract_text(data: bytes, filename: str, content_type: str | None = None) -> ParsedDocument:
    """Return the text of an uploaded file, or raise ``IngestError`` saying why not.

    The extension decides the format; ``content_type`` is only consulted when the
    name has no extension (pasted text, odd uploads), and unknown ones are read as
    plain text, which still rejects binary data.
    """
    kind = _resolve_format(filename, content_type)
    if not data.strip():
        raise IngestError("The file is empty.")
    text, title = _PARSERS[kind](data)
    text = _normalise(text)
    if not text:
        raise IngestError("The file contains no readable text.")
    return ParsedDocument(text=text, title_hint=_clean_title(title), language=detect_language(text))


def _resolve_format(filename: str, content_type: str | None) -> str:
    suffix = PurePath(filename).suffix.lower()
    if suffix:
        if suffix not in _EXTENSIONS:
            raise IngestError(
                f"Files of type {suffix} are not supported. Upload one of: {_SUPPORTED_LIST}."
            )
        return _EXTENSIONS[suffix]
    mime = (content_type or "").split(";")[0].strip().lower()
    return _CONTENT_TYPES.get(mime, "text")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- plain text and markdown ------------------------------------------------------

_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_HIGH_BYTES = bytes(range(128, 256))
# Real text has almost no control characters; a legacy 8-bit encoded file is
# still mostly ASCII. Random or binary bytes break both rules by a wide margin.
_MAX_CONTROL_SHARE = 0.05
_MAX_LEGACY_HIGH_SHARE = 0.3


def _binary_error() -> IngestError:
    return IngestError(
        "This file does not look like text: it may be binary or use an unsupported "
        f"encoding. Save it as UTF-8 text or upload one of: {_SUPPORTED_LIST}."
    )


def decode_text(data: bytes) -> str:
    """Decode bytes that should be text, rejecting binary data.

    UTF-16 is trusted only with a byte-order mark; UTF-8 (with or without BOM) is
    tried next; cp1252 is the fallback for old Western files, and only when the
    bytes still look like text.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return _checked_text(_decode_strict(data, "utf-16"))
    if b"\x00" in data:
        raise _binary_error()
    try:
        return _checked_text(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        pass
    high_bytes = len(data) - len(data.translate(None, delete=_HIGH_BYTES))
    if high_bytes > len(data) * _MAX_LEGACY_HIGH_SHARE:
        raise _binary_error()
    return _checked_text(_decode_strict(data, "cp1252"))


def _decode_strict(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise _binary_error() from exc


def _checked_text(text: str) -> str:
    if len(_CONTROL_CHARS.findall(text)) > len(text) * _MAX_CONTROL_SHARE:
        raise _binary_error()
    return text


def _parse_text(data: bytes) -> tuple[str, str | None]:
    text = decode_text(data)
    return text, _first_line(text)


_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
# A setext heading is a single line after a blank line (or the start), underlined
# with === (level 1) or --- (level 2). Requiring the blank line avoids eating
# multi-line paragraphs and YAML front matter.
_SETEXT_HEADING = re.compile(
    r"(?:\A|(?<=\n\n))(?P<title>[^\s#>|*+\-=`][^\n]*?)[ \t]*\n(?P<rule>={2,}|-{2,})[ \t]*$",
    re.MULTILINE,
)


def _parse_markdown(data: bytes) -> tuple[str, str | None]:
    text = _SETEXT_HEADING.sub(_setext_to_atx, _normalise(decode_text(data)))
    heading = _ATX_HEADING.search(text)
    return text, heading[1] if heading else _first_line(text)


def _setext_to_atx(match: re.Match[str]) -> str:
    marks = "#" if match["rule"].startswith("=") else "##"
    return f"{marks} {match['title']}"


def _first_line(text: str) -> str | None:
    """The first line, when it is short enough to be a title rather than prose."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if 0 < len(line) <= _MAX_FIRST_LINE_TITLE else None


# --- HTML ---------------------------------------------------------------------------

_HTML_DROP = ("script", "style", "noscript", "template", "head", "svg")
_HTML_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_HTML_BLOCKS = _words(
    "address article aside blockquote caption dd details dialog div dl dt fieldset "
    "figcaption figure footer form header hr main nav ol p section summary table "
    "tbody tfoot thead ul"
)
# Text that opens and closes each block element; list items become "- " lines.
_HTML_BREAKS = {tag: ("\n\n", "\n\n") for tag in _HTML_BLOCKS} | {"li": ("\n- ", "")}
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)


def _parse_html(data: bytes) -> tuple[str, str | None]:
    try:
        root = lxml.html.document_fromstring(_strip_xml_declaration(_decode_html(data)))
    except (etree.ParserError, ValueError) as exc:
        raise IngestError("The HTML file contains no readable text.") from exc
    title = root.findtext(".//title")
    dropped = root.iter(*_HTML_DROP, etree.Comment, etree.ProcessingInstruction)
    for element in list(dropped):
        element.drop_tree()
    parts: list[str] = []
    _walk_html(root, parts)
    # Empty lines are the breaks emitted for blocks; lines holding only spaces are
    # source indentation between tags and would read as extra paragraph breaks.
    lines = [line.strip() for line in "".join(parts).split("\n") if not line or line.strip()]
    return "\n".join(lines), title


def _decode_html(data: bytes) -> str:
    """Honour a ``<meta charset>`` declaration, else decode like plain text."""
    declared = _META_CHARSET.search(data[:4096])
    if declared:
        try:
            return _checked_text(data.decode(declared[1].decode("ascii"), errors="replace"))
        except LookupError:
            pass
    return decode_text(data)


def _strip_xml_declaration(text: str) -> str:
    # lxml refuses str input that still carries an encoding declaration.
    return re.sub(r"^\s*<\?xml[^>]*\?>", "", text)


def _walk_html(element: lxml.html.HtmlElement, parts: list[str]) -> None:
    """Append the element's text to ``parts``, marking blocks with blank lines."""
    tag = element.tag
    if tag in _HTML_HEADINGS:
        parts.append(f"\n\n{'#' * _HTML_HEADINGS[tag]} {_inline(element)}\n\n")
    elif tag == "tr":
        cells = (_inline(cell) for cell in element if cell.tag in ("td", "th"))
        parts.append("\n" + " | ".join(cell for cell in cells if cell))
    elif tag == "br":
        parts.append("\n")
    elif tag == "pre":
        parts.append(f"\n\n{element.text_content()}\n\n")
    else:
        _walk_html_container(element, parts)
    if element.tail:
        parts.append(_collapse_spaces(element.tail))


def _walk_html_container(element: lxml.html.HtmlElement, parts: list[str]) -> None:
    opening, closing = _HTML_BREAKS.get(element.tag, ("", ""))
    parts.append(opening)
    if element.text:
        parts.append(_collapse_spaces(element.text))
    for child in element:
        _walk_html(child, parts)
    parts.append(closing)


def _inline(element: lxml.html.HtmlElement) -> str:
    return _collapse_spaces(element.text_content()).strip()


def _collapse_spaces(text: str) -> str:
    return re.sub(r"\s+", " ", text)


# --- PDF ----------------------------------------------------------------------------


def _parse_pdf(data: bytes) -> tuple[str, str | None]:
    reader = _open_pdf(data)
    _unlock_pdf(reader)
    # pypdf parses lazily and raises many exception types on damaged input; for an
    # untrusted upload any failure here means "this PDF cannot be read".
    try:
        pages = [page.extract_text() or "" for page in reader.pages]
        title = reader.metadata.title if reader.metadata else None
    except Exception as exc:
        raise _damaged_pdf() from exc
    text = "\n\n".join(pages)
    if not text.strip():
        raise IngestError(
            "This PDF has no extractable text; it may be a scanned image, and OCR is not supported."
        )
    return text, title


def _open_pdf(data: bytes) -> pypdf.PdfReader:
    try:
        return pypdf.PdfReader(io.BytesIO(data))
    except Exception as exc:  # see _parse_pdf: any failure means unreadable
        raise _damaged_pdf() from exc


def _unlock_pdf(reader: pypdf.PdfReader) -> None:
    """Open PDFs protected only by an owner password; refuse real passwords."""
    if not reader.is_encrypted:
        return
    try:
        unlocked = reader.decrypt("") != pypdf.PasswordType.NOT_DECRYPTED
    except Exception as exc:  # unsupported cipher or damaged encryption dictionary
        raise _protected_pdf() from exc
    if not unlocked:
        raise _protected_pdf()


def _damaged_pdf() -> IngestError:
    return IngestError("This PDF is damaged or is not a valid PDF file.")


def _protected_pdf() -> IngestError:
    return IngestError("This PDF is password-protected. Remove the password and upload it again.")


# --- DOCX ---------------------------------------------------------------------------

_HEADING_STYLE = re.compile(r"heading ([1-9])", re.IGNORECASE)
_MAX_STYLE_DEPTH = 8


def _parse_docx(data: bytes) -> tuple[str, str | None]:
    # python-docx raises zip, XML, key and value errors on damaged files; for an
    # untrusted upload any of them means "this document cannot be read".
    try:
        document = docx.Document(io.BytesIO(data))
        blocks = [_docx_block(item) for item in document.iter_inner_content()]
        title = _docx_core_title(document) or _docx_title(document.paragraphs)
    except Exception as exc:
        raise IngestError("This Word file is damaged or is not a valid .docx file.") from exc
    return "\n\n".join(block for block in blocks if block.strip()), title


def _docx_block(item: Paragraph | Table) -> str:
    if isinstance(item, Table):
        return "\n".join(_docx_row(row.cells) for row in item.rows)
    level = _heading_level(item)
    if level and item.text.strip():
        return f"{'#' * level} {_collapse_spaces(item.text).strip()}"
    return item.text


def _docx_row(cells: list[_Cell]) -> str:
    texts: list[str] = []
    for cell in cells:
        text = _collapse_spaces(cell.text).strip()
        # A merged cell shows up once per grid column it spans; keep it once.
        if text and (not texts or texts[-1] != text):
            texts.append(text)
    return " | ".join(texts)


def _heading_level(paragraph: Paragraph) -> int | None:
    """Heading level from the style, following "based on" so custom heading styles count."""
    style = paragraph.style
    for _ in range(_MAX_STYLE_DEPTH):
        if style is None:
            return None
        match = _HEADING_STYLE.fullmatch(style.name or "")
        if match:
            return min(int(match[1]), 6)
        style = style.base_style
    return None


def _docx_core_title(document: docx.document.Document) -> str | None:
    """The title in the file's own core properties. python-docx invents a core-properties part
    titled "Word Document" for a file without one, so a missing part means "no title"."""
    try:
        part = document.part.package.part_related_by(RELATIONSHIP_TYPE.CORE_PROPERTIES)
    except KeyError:
        return None
    title = getattr(part, "core_properties", None)
    return title.title if title is not None else None


def _docx_title(paragraphs: list[Paragraph]) -> str | None:
    for paragraph in paragraphs:
        if paragraph.style is not None and paragraph.style.name == "Title":
            return paragraph.text
    return None


_PARSERS: dict[str, Callable[[bytes], tuple[str, str | None]]] = {
    "text": _parse_text,
    "markdown": _parse_markdown,
    "html": _parse_html,
    "pdf": _parse_pdf,
    "docx": _parse_docx,
}


# --- shared clean-up ----------------------------------------------------------------

_MAX_TITLE_CHARS = 200
_MAX_FIRST_LINE_TITLE = 120


def _normalise(text: str) -> str:
    """NFC (PDFs often emit decomposed Hangul and accents), LF newlines, no stray
    control characters, no trailing spaces, at most one blank line in a row."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _CONTROL_CHARS.sub("", text).replace("\x0b", "\n").replace("\x0c", "\n")
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def filename_title(name: str) -> str:
    """The title of a file that names none itself: its name without folder or extension
    ("canteen.pdf" → "canteen"), so the knowledge base does not list file names."""
    stem = _collapse_spaces(PurePath(name).stem).strip()
    return stem or name


def _clean_title(title: str | None) -> str | None:
    title = _collapse_spaces(title or "").strip()
    return title[:_MAX_TITLE_CHARS] or None


# --- language -----------------------------------------------------------------------

_SAMPLE_CHARS = 10_000
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_WORD = re.compile(r"[^\W\d_]+")
# One Hangul syllable or Han character carries roughly as much text as three
# Latin letters, so CJK counts are weighted up before picking the main script.
_WIDE_SCRIPT_WEIGHT = 3
_MIN_KANA_SHARE = 0.1
_MIN_STOPWORD_HITS = 2
_MIN_STOPWORD_SHARE = 0.05
_STOPWORDS: dict[str, frozenset[str]] = {
    "en": _words(
        "the and of to is in that it for you are with on this be was not have or by "
        "from at your will can an as"
    ),
    "es": _words(
        "el la los las de que y en un una es por con para del se no su al lo como "
        "más pero sus le ya este está son también hay"
    ),
    "pt": _words(
        "o os a as de que e em um uma é do da dos das no na para com não por se "
        "mais ao seu sua são também está"
    ),
    "fr": _words(
        "le la les de des et en un une est du que qui dans pour pas sur au avec ce "
        "il elle sont vous nous par plus"
    ),
    "de": _words(
        "der die das und ist nicht ein eine zu den mit von sich des auf für im dem "
        "es sie auch wird werden oder bei nach"
    ),
}


def detect_language(text: str) -> str:
    """Guess a short language code from the script and, for Latin, stopwords.

    Cheap on purpose: it picks the full-text search configuration and labels
    documents, so it only has to be right about the obvious cases and say
    ``"und"`` otherwise.
    """
    sample = text[:_SAMPLE_CHARS]
    hangul = len(_HANGUL.findall(sample))
    kana = len(_KANA.findall(sample))
    han = len(_HAN.findall(sample))
    scores = {
        "ko": hangul * _WIDE_SCRIPT_WEIGHT,
        "cjk": (han + kana) * _WIDE_SCRIPT_WEIGHT,
        "ru": len(_CYRILLIC.findall(sample)),
        "latin": len(_LATIN.findall(sample)),
    }
    script = max(scores, key=lambda name: scores[name])
    if scores[script] == 0:
        return "und"
    if script == "cjk":
        return "ja" if kana >= (han + kana) * _MIN_KANA_SHARE else "zh"
    if script == "latin":
        return _latin_language(sample)
    return script


def _latin_language(sample: str) -> str:
    words = _WORD.findall(sample.lower())
    hits = {
        code: sum(word in stopwords for word in words) for code, stopwords in _STOPWORDS.items()
    }
    ranked = sorted(hits.items(), key=lambda item: item[1], reverse=True)
    (best, best_hits), (_, runner_up_hits) = ranked[0], ranked[1]
    enough = best_hits >= max(_MIN_STOPWORD_HITS, len(words) * _MIN_STOPWORD_SHARE)
    return best if enough and best_hits > runner_up_hits else "und"
