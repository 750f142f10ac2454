"""PDF parsing shared by the PDF tools: captions, sections, figure and table regions, markdown."""
from .model import BBox, FloatRef, ParsedPaper, Section, TextBlock

__all__ = ["BBox", "FloatRef", "ParsedPaper", "Section", "TextBlock"]
