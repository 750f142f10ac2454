"""PDF parsing shared by the PDF tools: captions, sections, figure and table regions, markdown."""
from ._cells import TableCells, extract_table, rows_to_markdown
from ._crop import FigureCrop, body_box, crop_figure
from ._errors import PdfError
from ._load import LoadedPaper, load_paper, parse_cached
from ._parse import PARSER_VERSION, parse_pdf
from .model import BBox, FloatRef, ParsedPaper, Section, TextBlock

__all__ = [
    "BBox", "FloatRef", "ParsedPaper", "Section", "TextBlock",
    "PdfError", "parse_pdf", "parse_cached", "PARSER_VERSION", "load_paper", "LoadedPaper",
    "crop_figure", "FigureCrop", "body_box", "extract_table", "TableCells", "rows_to_markdown",
]
