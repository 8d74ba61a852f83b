"""Named lxml behaviours of each engine's element model (trafila.dom, the
core's CElement proxies: the ``dom_engine`` fixture), each checked against lxml live."""

from __future__ import annotations

import copy

import pytest

lxml_html = pytest.importorskip("lxml.html")
from lxml import etree  # noqa: E402

from harness.lxml_bridge import from_lxml, to_lxml  # noqa: E402
from harness.treedump import dump_element, dump_lxml_document, dump_trafila_document, first_difference  # noqa: E402
from tests._helpers import delete_element, trafilatura_html_parser  # noqa: E402

PARSER = trafilatura_html_parser()


def both(html: str, eng=None):
    """The lxml element and the same tree in ``eng``'s model (the reference:
    bridged from lxml; the core: parsed by the core, which builds lxml's tree)."""
    lx = lxml_html.fromstring(html, parser=PARSER)
    if eng is None or eng.engine == "reference":
        return lx, from_lxml(lx)
    tr = eng.fromstring(html)
    same(lx, tr)
    return lx, tr


def same(lx, tr) -> None:
    assert dump_element(lx) == dump_element(tr), first_difference(dump_element(lx), dump_element(tr))


def test_iter_delete_nested_match_stops_in_detached_subtree(dom_engine) -> None:
    # the prefetched node sits inside the deleted element: the walk goes on in
    # the detached subtree and stops, leaving the later <aside> in the tree
    html = "<div><aside><aside></aside></aside><p>x</p><aside>y</aside></div>"
    for lx, tr in [both(html, dom_engine)]:
        for world in (lx, tr):
            for e in world.iter("aside"):
                delete_element(e)
        same(lx, tr)
        assert [e.tag for e in tr.iter()] == ["div", "p", "aside"]


def test_iter_rename_after_prefetch_still_visits(dom_engine) -> None:
    lx, tr = both("<div><p>a</p><p>b</p><p>c</p></div>", dom_engine)
    seen = {}
    for name, world in (("lx", lx), ("tr", tr)):
        out = []
        for e in world.iter("p"):
            out.append(e.text)
            nxt = e.getnext()
            if nxt is not None:
                nxt.tag = "span"  # renamed after it was prefetched
        seen[name] = out
    # each renamed node had been prefetched already: all three are visited
    assert seen["lx"] == seen["tr"] == ["a", "b", "c"]
    same(lx, tr)


def test_remove_keeps_tail_on_removed_element(dom_engine) -> None:
    lx, tr = both("<div>a<b>b</b>tail<i>i</i></div>", dom_engine)
    lx.remove(lx[0])
    tr.remove(tr[0])
    same(lx, tr)
    assert tr.text == "a" and tr[0].tag == "i"


def test_append_moves_tail_along(dom_engine) -> None:
    lx, tr = both("<div><p>x<b>b</b>tb</p><section></section></div>", dom_engine)
    lx[1].append(lx[0][0])
    tr[1].append(tr[0][0])
    same(lx, tr)
    assert tr[1][0].tail == "tb"


def test_addnext_keeps_own_tail_and_moves_siblings_tail(dom_engine) -> None:
    lx, tr = both("<div><a>1</a>t1<b>2</b>t2<c>3</c>t3</div>", dom_engine)
    lx[0].addnext(lx[2])
    tr[0].addnext(tr[2])
    same(lx, tr)
    lx[2].addprevious(lx[0])
    tr[2].addprevious(tr[0])
    same(lx, tr)


def test_addnext_on_root_raises_type_error(dom_engine) -> None:
    with pytest.raises(TypeError):
        etree.Element("x").addnext(etree.Element("y"))
    with pytest.raises(TypeError):
        dom_engine.Element("x").addnext(dom_engine.Element("y"))


def test_copy_takes_tail_and_makes_new_document(dom_engine) -> None:
    lx, tr = both("<div><p>a<b>b</b></p>tail<i/></div>", dom_engine)
    for f in (copy.copy, copy.deepcopy):
        cl, ct = f(lx[0]), f(tr[0])
        same(cl, ct)
        assert ct.tail == "tail" and ct.getparent() is None
        assert ct.getroottree().getroot() is ct
        assert cl.getroottree().getroot() is cl


def test_removed_element_stays_in_old_document(dom_engine) -> None:
    lx, tr = both("<html><body><div><p>x</p></div></body></html>", dom_engine)
    lp, tp = lx.find(".//p"), tr.find(".//p")
    lp.getparent().remove(lp)
    tp.getparent().remove(tp)
    assert lp.getroottree().getroot() is lx
    assert tp.getroottree().getroot() is tr


def test_strip_tags_merges_text_recursively(dom_engine) -> None:
    lx, tr = both("<div>a<b>b<b>c</b>d</b>e<i>f</i>g<b></b>h</div>", dom_engine)
    etree.strip_tags(lx, "b")
    dom_engine.strip_tags(tr, "b")
    same(lx, tr)
    assert tr.text == "abcde"


def test_strip_elements_with_and_without_tail(dom_engine) -> None:
    for wt in (True, False):
        lx, tr = both("<div>a<b>b</b>t1<b>c</b>t2<i>i<b>x</b>t3</i>t4</div>", dom_engine)
        etree.strip_elements(lx, "b", with_tail=wt)
        dom_engine.strip_elements(tr, "b", with_tail=wt)
        same(lx, tr)


def test_strip_does_not_touch_the_element_itself(dom_engine) -> None:
    lx, tr = both("<b><b>x</b>y</b>", dom_engine)
    etree.strip_tags(lx, "b")
    dom_engine.strip_tags(tr, "b")
    same(lx, tr)
    assert tr.tag == "b"


def test_itertext_and_text_content(dom_engine) -> None:
    lx, tr = both("<div>a<p>b<span>c</span>d</p>e<p>f</p>g</div>tail", dom_engine)
    assert list(tr.itertext()) == list(lx.itertext())
    assert list(tr.itertext("p")) == list(lx.itertext("p"))
    assert list(tr.itertext(with_tail=False)) == list(lx.itertext(with_tail=False))
    assert tr.text_content() == lx.text_content()
    assert tr[0].text_content() == lx[0].text_content()


def test_iter_accepts_tag_sequences_and_star(dom_engine) -> None:
    lx, tr = both("<div><p>a</p><span>b</span><p><i>c</i></p></div>", dom_engine)
    for args in [("p", "i"), (["p", "i"],), ("*",), (), (None,), (("p",), "span")]:
        assert [e.tag for e in lx.iter(*args)] == [e.tag for e in tr.iter(*args)], args


def test_insert_out_of_range_appends_like_lxml(dom_engine) -> None:
    lx, tr = both("<div><a></a><b></b></div>", dom_engine)
    for idx in (-10, 10, -1, 0):
        lx.insert(idx, etree.Element("x"))
        tr.insert(idx, dom_engine.Element("x"))
        same(lx, tr)


def test_setitem_drops_old_tail(dom_engine) -> None:
    lx, tr = both("<div><a></a>ta<b></b>tb</div>", dom_engine)
    new_l, new_t = lxml_html.Element("n"), dom_engine.Element("n")
    new_l.tail = new_t.tail = "tn"
    lx[0] = new_l
    tr[0] = new_t
    same(lx, tr)


def test_drop_tag_and_drop_tree(dom_engine) -> None:
    lx, tr = both("<div>a<b>b<i>i</i>x</b>t<u>u</u>v</div>", dom_engine)
    lx.find("b").drop_tag()
    tr.find("b").drop_tag()
    same(lx, tr)
    lx.find("u").drop_tree()
    tr.find("u").drop_tree()
    same(lx, tr)


def test_find_paths(dom_engine) -> None:
    lx, tr = both(
        '<html><head><meta http-equiv="content-language" content="de"><title>t</title></head>'
        '<body><div id="data-preloaded"><p>x</p></div><script type="application/ld+json">{}</script>'
        '<input type="hidden"><a rel="license" href="/l">l</a></body></html>',
        dom_engine,
    )
    for path in [".//p", ".//head//title", './/meta[@http-equiv="content-language"][@content]',
                 './/script[@type="application/ld+json"]', './/div[@id="data-preloaded"]',
                 './/input[@type="hidden"]', ".//a[@rel][@href]", "body", ".//body", ".//*", "head/title"]:
        assert [e.tag for e in lx.findall(path)] == [e.tag for e in tr.findall(path)], path
        assert (lx.find(path) is None) == (tr.find(path) is None)


def test_second_root_and_doctype_are_bridged(dom_engine) -> None:
    html = "<!DOCTYPE html><html><body><p>a</p></body></html>x<p>y</p>"
    lx = lxml_html.fromstring(html, parser=PARSER)
    tr = from_lxml(lx) if dom_engine.engine == "reference" else dom_engine.fromstring(html)
    a, b = dump_lxml_document(lx), dump_trafila_document(tr)
    assert a == b, first_difference(a, b)
    assert len(b["nodes"]) == 2 and b["doctype"] == ("html", None, None)
    assert tr.getnext() is tr.getroottree().children[1]


def test_first_difference_names_the_node(dom_engine) -> None:
    lx, tr = both("<div><p>a</p><p>b<i>c</i>d</p></div>", dom_engine)
    tr[1][0].tail = "D"
    msg = first_difference(dump_element(lx), dump_element(tr))
    assert msg is not None and "/div[1]/p[0]/i: tail 'd' != 'D'" in msg


def test_to_lxml_round_trip(dom_engine) -> None:
    lx, tr = both("<div a='1' b='2'>x<p>y</p>z<br>w</div>", dom_engine)
    back = to_lxml(tr)
    same(back, tr)


def test_set_none_makes_valueless_attribute(dom_engine) -> None:
    from trafila.html.serialize import tostring

    lx, tr = lxml_html.Element("div"), dom_engine.Element("div")
    lx.set("hidden", None)
    tr.set("hidden", None)
    assert tr.get("hidden") == lx.get("hidden") == ""
    for kw in [dict(method="html"), dict()]:
        assert tostring(tr, **kw) == etree.tostring(lx, **kw)
    with pytest.raises(TypeError):
        lx.set("x", 1)
    with pytest.raises(TypeError):
        tr.set("x", 1)


def test_setitem_cycle_raises(dom_engine) -> None:
    # lxml creates a cycle (and then loops forever); trafila refuses
    tr = dom_engine.Element("div")
    dom_engine.SubElement(tr, "p")
    with pytest.raises(ValueError):
        tr[0] = tr


@pytest.mark.parametrize("html", [
    "<div>a<b>x</b>c<i></i><u>y</u>d</div>", "<div><b>x</b></div>", "<div> <p>q</p> </div>", "<div>t</div>",
])
def test_text_nodes_is_xpath_text(html: str, dom_engine) -> None:
    lx, tr = both(html, dom_engine)
    for a, b in zip(lx.iter(), tr.iter()):
        assert dom_engine.text_nodes(b) == [str(t) for t in a.xpath("text()")]
        assert b.text_content() == a.xpath("string()")


def test_model_types(dom_engine) -> None:
    lx, tr = both("<div><p>a</p></div>", dom_engine)
    assert isinstance(tr, dom_engine.element_type) and dom_engine.iselement(tr)
    assert dom_engine.iselement(tr[0]) and not dom_engine.iselement(lx)
    # identity as lxml keeps it: the same node gives the same live proxy
    assert tr[0] is tr[0] and tr[0].getparent() is tr and tr.getroottree() is tr[0].getroottree()
