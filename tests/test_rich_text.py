"""Scraped TeX and Markdown rendered right: math only where it is math, text markup as text.

The expected outputs are written by hand from what a reader should see; the review's failures
(issue 18) are the first rows."""

from __future__ import annotations

import pytest
from markupsafe import Markup
from pylatexenc import latexwalker

from confsite.text import plain
from confsite.text.plain import math_spans, plain_text
from confsite.text.rich import _joined, _mathml_is_safe, render_abstract, render_rich_line


def formulas(text: str) -> list[str]:
    return [span.tex for span in math_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The review's page: "$\times$512" closed a formula before a digit, which pandoc's rule
        # refused, so the dollar paired with the next one and two sentences became math.
        (
            "images (e.g., 1024$\\times$512), trained on patches (e.g., 64$\\times$64). We name",
            ["\\times", "\\times"],
        ),
        ("costs $5 and we pay $10 more", []),  # dollars of money: a space just inside
        ("the $x$ and $y$ axes", ["x", "y"]),
        ("cut off inside $\\alpha + \\beta", []),  # no closing dollar: text
        ("$x$ and then $y is cut off", ["x"]),
        # paired across prose: three words in a row are not a formula
        ("a $k$-NN and $\\ell$ the $p$ norm", ["k", "\\ell", "p"]),
        ("for $n$ where this is the number of items, $m$", ["n", "m"]),
        ("we use $bits, so that the reader can see$ it", []),
        ("$\\text{the words in text}$", ["\\text{the words in text}"]),  # text macros may
        ("$$\\sqrt{n}$ , where", ["\\sqrt{n}"]),  # a scrape's doubled opening dollar
        ("$$x^2$$", ["x^2"]),
        ("\\(a+b\\) and \\[c\\]", ["a+b", "c"]),
        ("an escaped \\$5 and $x$", ["x"]),
        # doubled escapes undone inside math, not in an array's row breaks
        ("is exactly $\\max\\\\{d_x,d_y,2\\\\}$ if", ["\\max\\{d_x,d_y,2\\}"]),
        ("$\\begin{array}{c} a \\\\ b \\end{array}$", ["\\begin{array}{c} a \\\\ b \\end{array}"]),
    ],
)
def test_math_spans(text: str, expected: list[str]) -> None:
    assert formulas(text) == expected


@pytest.mark.parametrize(
    ("text", "html"),
    [
        (
            "The code is at \\url{https://x.org/a_b}.",
            'The code is at <a href="https://x.org/a_b" rel="nofollow noopener">https://x.org/a_b</a>.',
        ),
        ("Code and videos are available at \\url{}.", "Code and videos are available at ."),
        (
            "results of \\cite{neyshabur2017pac} for",
            'results of <span class="cite">[neyshabur2017pac]</span> for',
        ),
        (
            "FMDPs~[citep{osband2014near}](#) by",
            'FMDPs\u00a0<span class="cite">[osband2014near]</span> by',
        ),
        (
            "for **U**nsupervised **N**ode",
            "for <strong>U</strong>nsupervised <strong>N</strong>ode",
        ),
        ("called \\textbf{FairAdj}, to", "called <strong>FairAdj</strong>, to"),
        ("called {\\textbf P}rototypes", "called <strong>P</strong>rototypes"),
        ("\\textit{a \\textbf{b} c}", "<em>a <strong>b</strong> c</em>"),
        (
            "released [here](https://a.org/b).",
            'released <a href="https://a.org/b" rel="nofollow noopener">here</a>.',
        ),
        # a Markdown link whose text is its URL: one link, not a link inside a link
        (
            "[https://a.org/b](https://a.org/b)",
            '<a href="https://a.org/b" rel="nofollow noopener">https://a.org/b</a>',
        ),
        (
            "at \\url{[https://a.org/b](https://a.org/b)}.",
            'at <a href="https://a.org/b" rel="nofollow noopener">https://a.org/b</a>.',
        ),
        ("[click](javascript:alert(1))", "[click](javascript:alert(1))"),
        ("to ``open the box'', and", "to \u201copen the box\u201d, and"),
        ('new ``words" in', "new \u201cwords\u201d in"),
        (
            "AdaGCN~footnote{Code at \\url{https://a.org}.}.",
            'AdaGCN (Code at <a href="https://a.org" rel="nofollow noopener">https://a.org</a>.).',
        ),
        (
            "code at https://a.org/x_y. See xfootnote{n} and cite{k}.",
            'code at <a href="https://a.org/x_y" rel="nofollow noopener">https://a.org/x_y</a>. '
            'See xfootnote{n} and <span class="cite">[k]</span>.',
        ),
        ("an empty\\footnote{} note", "an empty () note"),
        ("x <b>&amp;</b>", "x &lt;b&gt;&amp;amp;&lt;/b&gt;"),
        ("$5 and $10", "$5 and $10"),
        (
            "(Polyak-\\L ojasiewicz), valid \\LaTeX, 360\\textdegree{} (\\eg cats); \\ours",
            "(Polyak-Łojasiewicz), valid LaTeX, 360° (e.g. cats); \\ours",
        ),
        ("a $\\text{\\texttt{Poincar\\'e probe}}$ x", "a Poincaré probe x"),
    ],
)
def test_text_markup_renders_as_text(text: str, html: str) -> None:
    assert str(render_rich_line(text)) == html


def test_formula_renders_as_mathml_with_its_doubled_escapes_undone() -> None:
    html = str(render_rich_line("is exactly $\\max\\\\{d_x,d_y,2\\\\}$ if"))
    assert html.startswith("is exactly <math") and html.endswith("</math> if")
    assert "\\" not in html and "$" not in html
    assert "&#x0007B;" in html and "&#x0007D;" in html  # the braces are operators


@pytest.mark.parametrize(
    "text", ["( $\\text{\\textit{COCOA}}$ ) for", "DG $f\\text{\\texttt{low}}$ (x"]
)
def test_text_macros_inside_math_render_without_their_source(text: str) -> None:
    html = str(render_rich_line(text))
    assert "\\" not in html and "$" not in html and 'class="tex"' not in html
    assert ("COCOA" in html) or ("low" in html)


def test_the_reviews_page_keeps_its_sentences_out_of_math() -> None:
    text = (
        "generating high-resolution images (e.g., 1024$\\times$512), trained on small-size "
        "image patches (e.g., 64$\\times$64). We name our algorithm Patch-DM"
    )
    html = str(render_rich_line(text))
    assert html.count("<math") == 2
    assert "trained on small-size image patches" in html
    assert "<mi>t</mi>" not in html  # no word of the prose set as math letters


@pytest.mark.parametrize(
    ("mathml", "safe"),
    [
        ('<math xmlns="http://www.w3.org/1998/Math/MathML"><mi>x</mi></math>', True),
        ("<math><mi>&#x0003C;</mi><mo>&#x00026;</mo><none/></math>", True),
        ("<MATH><MI>x</MI></MATH>", True),  # HTML names are case-blind
        ("<math><mrow>\\x</mrow></math>", True),  # a backslash outside the symbol elements
        ("<math><mi>\\alpha</mi></math>", False),  # an unknown command passed through
        ("<math><mtext>costs $5</mtext></math>", False),
        ("<math><mi><mrow>\\x</mrow></mi></math>", False),  # inside, however deep
        ("<math><mi>&#x5c;x</mi></math>", False),  # a backslash written as a reference
        ("<math><script>alert(1)</script></math>", False),
        ('<math><mi class="a">x</mi></math>', False),
        ('<math href="javascript:alert(1)"><mi>x</mi></math>', False),
        ('<math><mstyle mathvariant="javascript:x"></mstyle></math>', False),
        ('<math xmlns:xlink="http://www.w3.org/1999/xlink"><mi>x</mi></math>', False),
        ("<math><mi>x</mo>\\y</mi></math>", False),  # a stray end tag closes nothing
        ("<math><mtext><![CDATA[\\alpha]]></mtext></math>", False),  # none is written
        ("<math><mtext><![cdata[x]]></mtext></math>", False),
        ("<math><!-- a comment --><mi>x</mi></math>", False),  # none is written either
        ("<math><mtext><!--><img/src=x/onerror=alert(1)>--></mtext></math>", False),
        ("<math><?xml x?><mi>x</mi></math>", False),
        ("<math><!DOCTYPE x><mi>x</mi></math>", False),
        ("<math><![foo[x]]><mi>x</mi></math>", False),  # unreadable to the parser
        ("<math><mtext>&bsol;x</mtext></math>", False),  # a named reference, decoded
        ("<math><mtext>&bsol x &dollar y</mtext></math>", False),  # without its semicolon too
        ("<math><mtext>R&D &#xZZ; &#99999999;</mtext></math>", True),  # nothing to decode
        ('<math><mi mathvariant="a:b" mathvariant="normal">x</mi></math>', False),  # any one
    ],
)
def test_only_allowed_mathml_passes(mathml: str, safe: bool) -> None:
    assert _mathml_is_safe(mathml) is safe


@pytest.mark.parametrize(
    "text",
    [
        'Let $x\\text{<!--><img/src="x"/onerror="alert(1)">-->}$ be.',
        'Let $x\\text{<![cdata[><img/src="x"/onerror="alert(1)">]]>}$ be.',
    ],
)
def test_markup_hidden_in_a_formula_is_shown_as_its_source(text: str) -> None:
    html = str(render_rich_line(text))
    assert "<img" not in html and "<math" not in html and "&lt;img" in html


def test_an_abstract_escapes_its_prose_between_formulas_and_paragraphs() -> None:
    abstract = 'A <b>&"bold"</b> $x<y$ claim.\n\n<script>alert(1)</script> and $\\alpha$.'
    html = str(render_abstract(abstract))
    assert html.startswith("<p>A &lt;b&gt;&amp;&#34;bold&#34;&lt;/b&gt; <math")
    assert "</p><p>&lt;script&gt;alert(1)&lt;/script&gt; and <math" in html
    assert html.endswith("</p>") and "<script" not in html and "<b>" not in html


def test_only_markup_is_joined_as_it_is() -> None:
    """The rich text joins its parts without escaping them again: a part that is plain text
    (unescaped) must not pass."""
    with pytest.raises(TypeError):
        _joined([Markup("<i>x</i>"), "<script>"])


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("for **U**nsupervised learning", "for Unsupervised learning"),
        ("in \\cite{neyshabur2017pac} for", "in [neyshabur2017pac] for"),
        ("at \\url{https://x.org/a}.", "at https://x.org/a."),
        ("1024$\\times$512), trained on 64$\\times$64).", "1024×512), trained on 64×64)."),
        ('new ``words" in', "new \u201cwords\u201d in"),
        ("costs $5 and $10", "costs $5 and $10"),
        # cut from their argument by the scrape: no `<%s>` or `<cit.>` from the TeX converter
        ("code at \\url and \\textbf{here}", "code at and here"),
        ("as in \\cite, \\citep and Figure \\ref{fig:loss}.", "as in , and Figure ."),
    ],
)
def test_plain_text(text: str, plain: str) -> None:
    assert plain_text(text) == plain


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("Broken math $\\frac$ stays text", "Broken math $\\frac$ stays text"),
        ("a cut \\frac{a} here", "a cut \\frac{a} here"),
        ("whole $\\frac{1}{2}$ math", "whole 1/2 math"),
    ],
)
def test_tex_the_converter_cannot_fill_in_is_kept_and_nothing_is_logged(
    text: str, plain: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """pylatexenc returns its format string ("%s/%s") for a macro short of arguments, and
    logs a warning that names no file or line: the formula is kept as written, silently."""
    assert plain_text(text) == plain
    assert capsys.readouterr().err == ""


def test_tex_is_parsed_with_the_table_of_macros_made_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The TeX parser builds its table of macros anew for each formula unless given one, which
    took as long as parsing a short formula: the one made at import must be given."""
    tables: list[object] = []
    walkers: list[str] = []
    made = latexwalker.get_default_latex_context_db

    walk = latexwalker.LatexWalker.__init__

    def counted_walk(walker: object, tex: str, *args: object, **options: object) -> None:
        walkers.append(tex)
        walk(walker, tex, *args, **options)

    monkeypatch.setattr(
        latexwalker, "get_default_latex_context_db", lambda: tables.append(1) or made()
    )
    monkeypatch.setattr(latexwalker.LatexWalker, "__init__", counted_walk)
    for cached in (plain.plain_text, plain._tex_plain_text, plain._tex_to_text):
        cached.cache_clear()
    text = "a formula $\\alpha_{17} + \\beta^{42}$ and $\\gamma$"
    assert plain.plain_text(text) == "a formula α_17 + β^42 and γ"
    assert len(walkers) == 2  # both formulas parsed here
    assert tables == []
