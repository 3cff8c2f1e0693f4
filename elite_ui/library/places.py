"""Places in an EPUB as reading apps write them, found in our book's text: an EPUB CFI (Calibre's viewer writes
``epubcfi(/N/2/4/2/1:12)``, N being twice the spine item's index plus two; the standard form puts ``/6/N!`` first)
and a KOReader xpointer (``/body/DocFragment[3]/body/div/p[18]/text().12``). Each names a spine item and an element
path inside its XHTML, not a percentage: the path is followed in the item's own XML, the text block holding the
place is found among the blocks the book was read from, and the place is that block's start in the book's text
plus the characters before it in the block. Everything read here is untrusted: what does not parse is None."""

from __future__ import annotations

import re
from typing import NamedTuple

from lxml import etree

from ..book.formats import HOLDING, SKIPPED, SpineItem, block_text, marks_place, pieces

CFI = re.compile(r"^epubcfi\((?P<path>[^)]{1,2000})\)$")
STEP = re.compile(r"/(\d{1,6})(?:\[[^\]]{0,200}\])?")
XPOINTER = re.compile(r"^/body/DocFragment\[(\d{1,6})\](?P<path>(?:/[A-Za-z][\w-]{0,30}(?:\[\d{1,6}\])?){0,200})"
                      r"(?:/text\(\)(?:\[(?P<node>\d{1,6})\])?)?(?:\.(?P<offset>\d{1,9}))?$")


def local(element) -> str:
    """An element's tag without its namespace ("p" for "{http://www.w3.org/1999/xhtml}p")."""
    return etree.QName(element).localname.lower() if isinstance(element.tag, str) else ""


EPUB_TYPE = "{http://www.idpf.org/2007/ops}type"
"""``epub:type`` in a tree that declares its namespace (a broken file's, read leniently, keeps the name as written)."""


class Run(NamedTuple):
    """The text an element holding blocks has between them, which the EPUB reader reads as a block of its own
    (:func:`elite_ui.book.formats.runs`): the ``holder``'s own strings there and the inline elements among them."""

    holder: object
    members: tuple


def strings(block) -> list:
    """A block's text nodes in order: a block element's, or a run's own strings and its inline elements' text."""
    if not isinstance(block, Run):
        return block.xpath(".//text()")
    return [s for m in block.members for s in ([m] if isinstance(m, str) else m.xpath(".//text()"))]


def shown(block):
    """The block's text nodes as the EPUB reader reads them (:func:`elite_ui.book.formats.html_blocks`), each with
    the element it is the text of and what the reader puts before it: none inside a note's mark or a page's number,
    the text after a line break spaced from it."""
    top = block.holder if isinstance(block, Run) else block
    for string in strings(block):
        parent = string.getparent()
        owner = parent if string.is_text else parent.getparent()
        if owner is not None and not hidden(owner, top):
            yield owner, " " if string.is_tail and local(parent) == "br" else "", str(string)


def hidden(element, block) -> bool:
    """Whether ``element`` is, or is inside, what the EPUB reader leaves out of ``block``: a script, a style
    (:data:`~elite_ui.book.formats.SKIPPED`) or a place mark (:func:`marks_place`)."""
    for e in [element, *element.iterancestors()]:
        kinds = f"{e.get(EPUB_TYPE, '')} {e.get('epub:type', '')} {e.get('role', '')}"
        name = local(e)
        mark = "".join(e.itertext()) if name == "sup" else ""
        if name in SKIPPED or marks_place(name, kinds, (e.get("class") or "").split(), mark):
            return True
        if e is block:
            return False
    return False


def text_blocks(root) -> list[tuple[object, str]]:
    """The blocks the EPUB reader took text from, in order (:func:`elite_ui.book.formats.runs`), each with its text
    as the reader reads it: each element of :data:`BLOCKS` holding none of :data:`HOLDING`, and each :class:`Run` of
    text an element holding blocks has between them (:func:`elite_ui.book.formats.pieces`); those with no text
    shown are left out, as the reader leaves them."""
    walked = pieces(root, lambda e: e.xpath("node()"), lambda e: "" if isinstance(e, str) else local(e),
                    lambda e: e.iterancestors(), [e for e in root.iter() if local(e) in HOLDING])
    blocks = [Run(holder, tuple(piece)) if isinstance(piece, list) else piece for holder, piece in walked]
    read = [(b, block_text("".join(lead + text for _, lead, text in shown(b)))) for b in blocks]
    return [(b, text) for b, text in read if text]


def parsed(item: SpineItem):
    """The item's XHTML as an XML tree (leniently: a broken file yields what can be read), or None."""
    if not item.content:
        return None
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=False)
    try:
        return etree.fromstring(item.content, parser)
    except (etree.XMLSyntaxError, ValueError):
        return None


def cfi_place(items: list[SpineItem], cfi: str) -> int | None:
    """The offset in the book's text of an EPUB CFI (Calibre's form or the standard one), or None."""
    found = CFI.match(cfi.strip()) if isinstance(cfi, str) else None
    if not found:
        return None
    path, _, offset = found.group("path").partition(":")
    if "!" in path:  # standard: /6/N[id]!/4/2...: the package's spine step, then the document's path
        spine, _, path = path.partition("!")
        steps = [int(n) for n in STEP.findall(spine)]
        index = steps[1] // 2 - 1 if len(steps) > 1 else -1
        steps = [int(n) for n in STEP.findall(path)]
    else:  # Calibre: /N, then the document's path from the document (/2 is the root element)
        steps = [int(n) for n in STEP.findall(path)]
        index, steps = (steps[0] // 2 - 1, steps[2:] if steps[1:2] == [2] else steps[1:]) if steps else (-1, [])
    root = parsed(items[index]) if 0 <= index < len(items) else None
    if root is None:
        return None
    node = root
    for n in steps:
        if n % 2:  # an odd step is a place among the text nodes: the offset counts across all of them
            break
        children = [child for child in node if isinstance(child.tag, str)]
        if not 0 < n // 2 <= len(children):
            return None
        node = children[n // 2 - 1]
    chars = re.match(r"\d{1,9}", offset)
    return block_place(items, index, root, node, int(chars.group(0)) if chars else None)


def xpointer_place(items: list[SpineItem], xpointer: str) -> int | None:
    """The offset in the book's text of a KOReader xpointer, or None."""
    found = XPOINTER.match(xpointer.strip()) if isinstance(xpointer, str) else None
    if not found:
        return None
    index = int(found.group(1)) - 1
    root = parsed(items[index]) if 0 <= index < len(items) else None
    if root is None:
        return None
    node = root if local(root) != "html" else next((c for c in root if local(c) == "body"), root)
    steps = re.findall(r"/([A-Za-z][\w-]*)(?:\[(\d+)\])?", found.group("path"))
    for tag, nth in steps[1:] if steps[:1] and steps[0][0].lower() == "body" else steps:
        same = [child for child in node if local(child) == tag.lower()]
        if not 0 < int(nth or 1) <= len(same):
            return None
        node = same[int(nth or 1) - 1]
    if found.group("offset") is None and found.group("node") is None:
        return block_place(items, index, root, node, None)
    own = list(node.xpath("text()"))
    nth = int(found.group("node") or 1)
    chars = sum(len(s) for s in own[: nth - 1]) + int(found.group("offset") or 0)
    return block_place(items, index, root, node, chars)


def block_place(items: list[SpineItem], index: int, root, node, chars: int | None) -> int | None:
    """Where ``node`` of spine item ``index``'s tree is in the book's text, ``chars`` characters into its own text
    (None: at its start). Its block (the k-th of that text in the item, for the k-th such element) is found among
    the blocks the book was read from."""
    item = items[index]
    read = text_blocks(root)
    blocks, texts = [b for b, _ in read], [text for _, text in read]
    block, node, chars = holding(root, blocks, node, chars)
    if block is None or not item.blocks:
        return next((i.start for i in items[index + 1:] if i.blocks), item.start if item.blocks else None)
    k = next(n for n, b in enumerate(blocks) if b is block)
    matches = [n for n, text in enumerate(item.blocks) if text == texts[k]]
    if not matches:
        return None
    found = matches[min(sum(text == texts[k] for text in texts[:k]), len(matches) - 1)]
    start = item.start + sum(len(b) + 2 for b in item.blocks[:found])
    ahead = "" if node is block and chars is None else text_before(block, node, chars)
    inside = len(block_text(ahead)) + (1 if ahead[-1:].isspace() and ahead.strip() else 0)
    return start + min(inside, len(item.blocks[found]))


def holding(root, blocks: list, node, chars: int | None) -> tuple[object, object, int | None]:
    """The block holding the place ``chars`` characters into ``node``'s own text (None: at its start), with the
    node and the characters as counted in that block: a block element around ``node``; else the :class:`Run`
    holding ``node`` (an inline element of a holder's own text) or, ``node`` holding blocks, the run holding its own
    text at ``chars`` (counted from that run's first own string). A place above the blocks (the body, a section, the
    space between two paragraphs) is the start of the first block after it, in document order (None if none)."""
    around = [node, *node.iterancestors()]  # kept, so that each element's id stays its own
    ids = {id(e) for e in around}
    block = next((b for b in blocks if id(b) in ids), None)
    runs = [b for b in blocks if isinstance(b, Run)]
    if block is None:
        block = next((r for r in runs if any(id(m) in ids for m in r.members)), None)
    if block is not None:
        return block, node, chars
    own, before, string = node.xpath("text()") if chars is not None else [], 0, None
    for string in own:
        if chars < before + len(string) or string is own[-1]:
            break
        before += len(string)
    for run in (r for r in runs if string is not None and r.holder is node):
        if any(isinstance(m, str) and same_string(m, string) for m in run.members):
            first = next(m for m in run.members if isinstance(m, str))
            skipped = next(n for n, s in enumerate(own) if same_string(s, first))
            return run, node, chars - sum(len(s) for s in own[:skipped])
    elements = list(root.iter())  # kept, so that each element's id stays its own
    order = {id(e): n for n, e in enumerate(elements)}
    where = order[id(node)] if string is None else at(string, order)
    after = next((b for b in blocks if starts(b, order) >= where), None)
    return after, after, None


def same_string(one, other) -> bool:
    """Whether two of lxml's strings are the same text node: an element's text, or the same element's tail."""
    return one.getparent() is other.getparent() and one.is_tail == other.is_tail


def starts(block, order: dict[int, int]) -> float:
    """Where a block starts in document order (``order``: each element's index there): at its first element or
    string (:func:`at`)."""
    first = block.members[0] if isinstance(block, Run) else block
    return at(first, order) if isinstance(first, str) else order[id(first)]


def at(string, order: dict[int, int]) -> float:
    """Where one of lxml's strings is in document order (``order``: each element's index there): at its element
    (the element's text) or after that element's last descendant (its tail)."""
    parent = string.getparent()
    if string.is_text:
        return order[id(parent)]
    *_, last = parent.iter()
    return order[id(last)] + 0.5


def text_before(block, node, chars: int | None) -> str:
    """The block's text ahead of the place: every string before ``node``'s first, then ``chars`` characters
    counted across ``node``'s own text nodes (the text of elements inside it, met on the way, counts whole)."""
    ahead, left, reached = [], chars, False
    for owner, lead, string in shown(block):
        inside = owner is node or any(a is node for a in owner.iterancestors())
        if not inside:
            if reached:
                break
            ahead.append(lead + string)
            continue
        reached = True
        if left is None:
            break
        if owner is node:
            if left < len(string):  # at a text node's end, the place is the next one's start
                ahead.append(lead + string[:left])
                break
            left -= len(string)
        ahead.append(lead + string)
    return "".join(ahead)
