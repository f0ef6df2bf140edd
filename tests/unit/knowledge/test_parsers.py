"""Text extraction from uploads; fixtures are generated here, not checked in."""

from __future__ import annotations

import io
import random
import re
import zipfile

import docx
import pypdf
import pytest
from docx.enum.style import WD_STYLE_TYPE

from knowledge.ingest.parsers import (
    IngestError,
    ParsedDocument,
    detect_language,
    extract_text,
    filename_title,
)


def make_pdf(pages: list[list[str]], *, title: str | None = None) -> bytes:
    """A minimal valid PDF with one Helvetica text line per string."""
    kids = " ".join(f"{4 + 2 * index} 0 R" for index in range(len(pages)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for index, lines in enumerate(pages):
        shown = " ".join(f"({line}) Tj T*" for line in lines)
        stream = f"BT /F1 12 Tf 72 720 Td 14 TL {shown} ET".encode("latin-1")
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (5 + 2 * index)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    info = ""
    if title:
        objects.append(f"<< /Title ({title}) >>".encode())
        info = f" /Info {len(objects)} 0 R"
    return _assemble_pdf(objects, info)


def _assemble_pdf(objects: list[bytes], info: str) -> bytes:
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R{info} >>"
    out += f"trailer\n{trailer}\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def encrypt_pdf(data: bytes, *, user_password: str) -> bytes:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="AES-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def make_docx(*, core_title: str = "") -> bytes:
    document = docx.Document()
    document.core_properties.title = core_title
    document.add_heading("Employee handbook", level=0)
    document.add_heading("Leave policy", level=1)
    document.add_paragraph("Employees get 25 days of annual leave.")
    document.add_heading("Sick leave", level=2)
    document.add_paragraph("Call your manager before nine.")
    table = document.add_table(rows=2, cols=3)
    table.cell(0, 0).text = "Type"
    table.cell(0, 1).merge(table.cell(0, 2)).text = "Days"
    table.cell(1, 0).text = "Sick"
    table.cell(1, 1).text = "10"
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def random_bytes(count: int = 4096, seed: int = 7) -> bytes:
    return random.Random(seed).randbytes(count)


def ingest_error(data: bytes, filename: str, content_type: str | None = None) -> str:
    with pytest.raises(IngestError) as caught:
        extract_text(data, filename, content_type)
    return caught.value.message


# --- plain text and markdown ------------------------------------------------------


def test_it_reads_utf8_text_and_hints_the_first_short_line_as_title() -> None:
    parsed = extract_text(b"Leave policy\r\n\r\nEveryone gets 25 days.\r\n", "leave.txt")

    assert parsed == ParsedDocument(
        text="Leave policy\n\nEveryone gets 25 days.", title_hint="Leave policy", language="und"
    )


def test_it_strips_a_utf8_byte_order_mark() -> None:
    assert extract_text("\ufeffHola".encode(), "a.txt").text == "Hola"


def test_it_reads_utf16_text_that_has_a_byte_order_mark() -> None:
    assert extract_text("Grüße aus Köln".encode("utf-16"), "a.txt").text == "Grüße aus Köln"


def test_it_falls_back_to_cp1252_for_legacy_western_text() -> None:
    data = "Café au lait — crème brûlée".encode("cp1252")

    assert extract_text(data, "menu.txt").text == "Café au lait — crème brûlée"


def test_it_rejects_random_binary_bytes_as_not_text() -> None:
    assert "does not look like text" in ingest_error(random_bytes(), "notes.txt")


def test_it_rejects_binary_bytes_without_nul_as_not_text() -> None:
    data = bytes(byte for byte in random_bytes() if byte)

    assert "does not look like text" in ingest_error(data, "notes.txt")


def test_it_rejects_an_empty_file() -> None:
    assert ingest_error(b"", "empty.txt") == "The file is empty."


def test_it_rejects_a_whitespace_only_file_as_empty() -> None:
    assert ingest_error(b" \n\t\r\n", "blank.md") == "The file is empty."


@pytest.mark.parametrize("filename", ["setup.exe", "old.DOC", "sheet.xlsx"])
def test_it_rejects_unsupported_extensions_and_lists_the_supported_ones(filename: str) -> None:
    message = ingest_error(b"anything", filename)

    assert "not supported" in message
    assert ".docx" in message


def test_it_uses_the_content_type_when_the_name_has_no_extension() -> None:
    parsed = extract_text(b"<p>Hello <b>there</b></p>", "pasted", "text/html; charset=utf-8")

    assert parsed.text == "Hello there"


def test_it_reads_extensionless_unknown_content_as_plain_text() -> None:
    assert extract_text(b"# Notes\nBody", "pasted", None).text == "# Notes\nBody"


def test_it_takes_the_markdown_title_from_the_first_heading() -> None:
    parsed = extract_text(b"Intro\n\n## Leave policy\n\nText", "handbook.md")

    assert parsed.title_hint == "Leave policy"


def test_it_turns_setext_markdown_headings_into_hash_headings() -> None:
    parsed = extract_text(b"Handbook\n========\n\nIntro\n\nLeave\n-----\n\nDays", "a.md")

    assert parsed.text == "# Handbook\n\nIntro\n\n## Leave\n\nDays"


# --- HTML -------------------------------------------------------------------------

PAGE = b"""<?xml version="1.0" encoding="utf-8"?><!DOCTYPE html>
<html><head><title>Leave &amp; absence</title><style>p { color: red }</style></head>
<body>
  <script>var secret = "script text";</script>
  <noscript>Enable JavaScript</noscript>
  <template><p>template text</p></template>
  <!-- comment text -->
  <h1>Leave   policy</h1>
  <p>Employees get <b>25 days</b> of leave.<br>Ask your manager.</p>
  <h3>Sick leave</h3>
  <ul>
    <li>Call before nine</li>
    <li>Bring a note</li>
  </ul>
  <table><tr><th>Type</th><th>Days</th></tr><tr><td>Sick</td><td>10</td></tr></table>
</body></html>"""


def test_it_keeps_html_headings_as_markdown_lines_and_drops_scripts_and_styles() -> None:
    parsed = extract_text(PAGE, "leave.html")

    assert parsed.text == (
        "# Leave policy\n\n"
        "Employees get 25 days of leave.\nAsk your manager.\n\n"
        "### Sick leave\n\n"
        "- Call before nine\n- Bring a note\n\n"
        "Type | Days\nSick | 10"
    )


@pytest.mark.parametrize("hidden", ["script text", "color", "Enable", "template", "comment"])
def test_it_leaves_no_trace_of_non_content_html(hidden: str) -> None:
    assert hidden not in extract_text(PAGE, "leave.html").text


def test_it_takes_the_html_title_from_the_title_element() -> None:
    assert extract_text(PAGE, "leave.html").title_hint == "Leave & absence"


def test_it_honours_a_declared_html_charset() -> None:
    page = b'<html><head><meta charset="windows-1252"></head><body><p>Caf\xe9</p></body></html>'

    assert extract_text(page, "menu.htm").text == "Café"


def test_it_rejects_html_without_text() -> None:
    page = b"<html><body><script>alert(1)</script></body></html>"

    assert ingest_error(page, "empty.html") == "The file contains no readable text."


# --- PDF --------------------------------------------------------------------------


def test_it_extracts_text_from_every_pdf_page() -> None:
    data = make_pdf([["Leave policy", "Employees get 25 days."], ["Second page."]])

    text = extract_text(data, "handbook.pdf").text

    assert text == "Leave policy\nEmployees get 25 days.\n\nSecond page."


def test_it_takes_the_pdf_title_from_its_metadata() -> None:
    data = make_pdf([["Body"]], title="Staff handbook")

    assert extract_text(data, "handbook.pdf").title_hint == "Staff handbook"


def test_it_rejects_a_truncated_pdf_as_damaged() -> None:
    data = make_pdf([["Leave policy"]])

    assert "damaged" in ingest_error(data[: len(data) // 2], "handbook.pdf")


def test_it_rejects_a_non_pdf_with_a_pdf_extension_as_damaged() -> None:
    assert "damaged" in ingest_error(b"just some words", "handbook.pdf")


def test_it_rejects_a_password_protected_pdf() -> None:
    data = encrypt_pdf(make_pdf([["Secret"]]), user_password="hunter2")

    assert "password-protected" in ingest_error(data, "secret.pdf")


def test_it_reads_a_pdf_locked_only_with_an_owner_password() -> None:
    data = encrypt_pdf(make_pdf([["Open to read"]]), user_password="")

    assert extract_text(data, "locked.pdf").text == "Open to read"


def test_it_rejects_a_pdf_without_text_as_probably_scanned() -> None:
    assert "scanned image" in ingest_error(make_pdf([[]]), "scan.pdf")


# --- DOCX -------------------------------------------------------------------------


def test_it_turns_docx_heading_styles_into_markdown_lines() -> None:
    text = extract_text(make_docx(), "handbook.docx").text

    assert text == (
        "Employee handbook\n\n"
        "# Leave policy\n\n"
        "Employees get 25 days of annual leave.\n\n"
        "## Sick leave\n\n"
        "Call your manager before nine.\n\n"
        "Type | Days\nSick | 10"
    )


def test_it_treats_a_style_based_on_a_heading_style_as_that_heading() -> None:
    document = docx.Document()
    custom = document.styles.add_style("Policy Heading", WD_STYLE_TYPE.PARAGRAPH)
    custom.base_style = document.styles["Heading 2"]
    document.add_paragraph("Sick leave", style="Policy Heading")
    document.add_paragraph("Ten days.")
    buffer = io.BytesIO()
    document.save(buffer)

    assert extract_text(buffer.getvalue(), "a.docx").text == "## Sick leave\n\nTen days."


def test_it_takes_the_docx_title_from_core_properties_first() -> None:
    parsed = extract_text(make_docx(core_title="Handbook 2025"), "handbook.docx")

    assert parsed.title_hint == "Handbook 2025"


def test_it_falls_back_to_the_docx_title_style() -> None:
    assert extract_text(make_docx(), "handbook.docx").title_hint == "Employee handbook"


def docx_without_core_properties() -> bytes:
    """A plain .docx (no Title paragraph) whose package has no docProps/core.xml at all, as
    some generators write it."""
    document = docx.Document()
    document.add_paragraph("Lunch is served from noon.")
    buffer = io.BytesIO()
    document.save(buffer)
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            if item.filename == "docProps/core.xml":
                continue
            data = source.read(item)
            if item.filename in ("_rels/.rels", "[Content_Types].xml"):
                data = re.sub(rb"<[^<>]*core(?:-properties|\.xml)[^<>]*/>", b"", data)
            target.writestr(item, data)
    return out.getvalue()


def test_a_docx_without_core_properties_has_no_title_hint() -> None:
    parsed = extract_text(docx_without_core_properties(), "canteen.docx")

    assert parsed.title_hint is None


def test_a_file_title_is_its_name_without_extension() -> None:
    assert filename_title("canteen menu.pdf") == "canteen menu"


def test_a_file_title_keeps_a_name_that_is_only_an_extension() -> None:
    assert filename_title(".pdf") == ".pdf"


def test_it_rejects_a_truncated_docx_as_damaged() -> None:
    data = make_docx()

    assert "damaged" in ingest_error(data[: len(data) // 2], "handbook.docx")


def test_it_rejects_random_bytes_named_docx_as_damaged() -> None:
    assert "damaged" in ingest_error(random_bytes(), "handbook.docx")


def test_it_rejects_a_docx_without_text() -> None:
    buffer = io.BytesIO()
    docx.Document().save(buffer)

    assert ingest_error(buffer.getvalue(), "blank.docx") == "The file contains no readable text."


# --- language ---------------------------------------------------------------------

SAMPLES = {
    "ko": "연차 휴가는 입사 첫해에 15일이 주어지며, 병가는 연간 10일까지 사용할 수 있습니다.",
    "es": "Los empleados tienen derecho a veinticinco días de vacaciones al año. Para pedir "
    "una baja por enfermedad, hay que avisar al responsable antes de las nueve.",
    "pt": "Os funcionários têm direito a vinte e cinco dias de férias por ano. Para pedir uma "
    "licença médica, é preciso avisar o gestor antes das nove horas.",
    "fr": "Les employés ont droit à vingt-cinq jours de congés par an. Pour un arrêt maladie, "
    "il faut prévenir le responsable avant neuf heures.",
    "de": "Die Mitarbeiter haben Anspruch auf fünfundzwanzig Urlaubstage im Jahr. Bei einer "
    "Krankmeldung muss der Vorgesetzte vor neun Uhr informiert werden.",
    "en": "Employees are entitled to twenty-five days of annual leave. To report sick leave, "
    "you have to tell your manager before nine.",
    "ja": "従業員は年間25日の有給休暇を取得できます。"
    "病気休暇の場合は、9時までに上司に連絡してください。",
    "zh": "员工每年享有二十五天带薪年假。请病假时请在九点前通知您的主管。",
    "ru": "Сотрудники имеют право на двадцать пять дней ежегодного отпуска.",
}


@pytest.mark.parametrize(("code", "text"), SAMPLES.items())
def test_it_detects_the_language_of_a_typical_sentence(code: str, text: str) -> None:
    assert detect_language(text) == code


@pytest.mark.parametrize("text", ["", "12345 678", "Acme GmbH", "---"])
def test_it_says_undetermined_when_there_is_too_little_evidence(text: str) -> None:
    assert detect_language(text) == "und"


def test_it_labels_the_extracted_document_with_its_language() -> None:
    assert extract_text(SAMPLES["ko"].encode(), "휴가.txt").language == "ko"
