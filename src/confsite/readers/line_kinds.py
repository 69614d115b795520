"""What a piece of a program is: chrome, a fact (badge, award, room, time), a label, an author
list, abstract prose, a heading, or a title. The per-site knowledge lives in the tables here."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .author_lists import clean_name
from .program import FUNCTION_WORDS, TITLE_WORDS, is_prose

# Page furniture of conference sites, aggregators and text browsers; compared casefolded.
CHROME_PHRASES = frozenset(
    p.strip().casefold()
    for p in """skip to yearly menu bar skip to main content|skip to yearly menu bar|
    skip to main content|chat is not available.|main navigation|login|log in|log out|logout|
    sign in|sign up|register|home|schedule|search|menu|toggle navigation|help|faq|contact|
    privacy policy|code of conduct|sponsors|organizers|committees|call for papers|dates|
    downloads|my stuff|my bookmarks|change password|reset password|edit profile|
    merge profiles|create profile|press|careers|future meetings|subscribe|
    get trending papers in your email inbox!|get trending papers in your email inbox once a day!|
    (button)|visit|full|chat|full chat|paper discussion|
    bookmark|(bookmark)|papers|paper|back to top|show more|show less|
    successful page load|expand all|collapse all|table of contents|contents|news|
    virtual|poster|slides|video|code|pdf|openreview|project page|abstract|full paper|
    no abstract available.|
    star history|license|view json|keyword: all|live stream|papervis|""".replace("\n", "").split(
        "|"
    )
    if p.strip()
)
# Headings of a page's side decks of other papers ("Similar Papers" under a paper's own page).
ASIDE_HEADINGS = re.compile(
    r"^(?:similar|related|recommended|other|more|suggested)\s+(?:papers|posters|works|talks)"
    r"|^you\s+may\s+also\s+like$|^see\s+also$",
    re.IGNORECASE,
)
# Names of a paper's links, furniture when a line holds nothing else.
LINK_WORDS = frozenset(
    "arxiv huggingface github homepage website demo dataset blog links link html bibtex"
    " supplementary supplemental poster paper code pdf video slides project page".split()
)
CHROME_PATTERNS = re.compile(
    r"""^(?:
      (?:©|\(c\)|copyright)\b.*
    | \d{4}(?:\s*[-–/]\s*\d{2,4})?                      # a year, as in a year selector
    | [-–]\s*\d{4}
    | \d[\d,]*\s+(?:upvotes?|authors?|comments?|stars?|views?|papers?|citations?|results?)
    | page\s+\d+(?:\s+of\s+\d+)?
    | (?:submitted|published)\s+(?:by|on)\b.*
    | tz:\s*\S+
    | iframe:.*
    | [_=\-*~]{6,}
    | (?:previous|next)(?:\s+page)?
    | powered\s+by\b.*
    | (?:show|hide)\s+(?:abstract|details|more|less)
    )$""",
    re.IGNORECASE | re.VERBOSE,
)

AWARD = re.compile(
    r"^(?:(?:\S+\s+){0,3}(?:Outstanding|Best)\b.{0,60}?(?:Paper|Award|Papers|Awards)?"
    r"|Honou?rable\s+Mentions?|Test\s+of\s+Time(?:\s+Award)?|Runner[- ]ups?|Award\s+Nominees?"
    r"|(?:\S+\s+){0,3}Award(?:s|\s+Winners?|\s+Nominees?)?)$",
    re.IGNORECASE,
)
# Presentation and decision badges of virtual sites and program pages.
BADGE = re.compile(
    r"^(?P<decision>Oral|Spotlight|Highlight|Poster|Long|Short|Demo|Findings|Invited)?"
    r"\s*(?P<kind>Poster|Talk|Oral|Presentation|Paper|Spotlight)?$",
    re.IGNORECASE,
)
ATTENDANCE = re.compile(r"^\[?\s*(?P<kind>Virtual|In[- ]Person)\s*\]?$", re.IGNORECASE)
PRESENTATION_HEADER = re.compile(
    r"^(?P<attendance>In[- ]Person|Virtual)(?:\s+(?P<kind>[A-Za-z][A-Za-z ]*?))?\s+presentation"
    r"\s*/\s*(?P<decision>.+)$",
    re.IGNORECASE,
)
POSTER_NUMBER = re.compile(r"^(?:Poster\s*)?#\s*[\w-]{1,10}$|^(?:[A-Z][\w-]*\s+){0,3}#\d+$")
TIME_LINE = re.compile(
    r"^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\w*\.?,?\s+\d{1,2}\s+\w+.*(?:a\.m\.|p\.m\.|am|pm|\d:\d\d).*$"
    r"|^\d{1,2}:\d{2}\s*(?:[ap]\.?m\.?)?\s*[-–—]\s*\d{1,2}:\d{2}.*$",
    re.IGNORECASE,
)
BRACKET_LINKS = re.compile(r"^(?:\[\s*[\w .-]{1,20}\s*\]\s*){1,8}$")
ROOM = re.compile(r"^(?:Room|Location|Hall|Halle)\s*:?\s+(?P<room>.{1,40})$", re.IGNORECASE)
LABEL = re.compile(
    r"^(?P<label>Abstract|TL;?DR|Summary|Keywords?|Authors?|Title|Session|Track|Room|Award)"
    r"\s*[:：]\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
# "Paper: https://…", "- Code: …", or a bare address: a link of the paper above, not a field.
LINK_LINE = re.compile(
    r"^(?:[^\W\d_][\w .-]{0,24}?\s*(?:[:：]\s*|\s))?(?P<url>(?:https?://|www\.)\S+)$",
    re.IGNORECASE,
)
# A listing's rank before a title ("12. Title") and its popularity after ("⭐ 66", "▲ 12").
TITLE_RANK = re.compile(r"^(?:\d{1,4}\.|\[[ xX]\])\s+(?=\S)")  # and a checklist's box
TITLE_POPULARITY = re.compile(r"\s*(?:[⭐★▲👍🔥]\ufe0f?\s*\d[\d,.]*[kK]?)+$")


@dataclass(frozen=True)
class Fact:
    """A line that states facts of a paper rather than a field of it."""

    facts: dict[str, str] = field(default_factory=dict)
    awards: tuple[str, ...] = ()


def is_chrome(text: str) -> bool:
    folded = text.casefold().strip(" :|>»")
    return (
        folded in CHROME_PHRASES
        or bool(CHROME_PATTERNS.match(text.strip()))
        or _is_link_bar(folded)
    )


LINK_BAR_GAPS = re.compile(r"[\s|·•/]+")
WORD_CHARACTER = re.compile(r"\w")


def _is_link_bar(folded: str) -> bool:
    """A row of link words ("Paper OpenReview Code Slides", "Links: arXiv • PDF"), each
    furniture of its own; icons and a leading label do not count."""
    words = [w.strip(":") for w in LINK_BAR_GAPS.split(folded) if WORD_CHARACTER.search(w)]
    if len(words) >= 3 and folded.split()[0].endswith(":"):
        words = words[1:]
    return len(words) >= 2 and all(w in CHROME_PHRASES or w in LINK_WORDS for w in words)


def fact_of(text: str) -> Fact | None:
    text = text.strip()
    if header := PRESENTATION_HEADER.match(text):
        facts = {
            "attendance": "virtual" if header["attendance"].lower() == "virtual" else "in person",
            "decision": header["decision"].strip(),
        }
        if header["kind"]:
            facts["presentation"] = header["kind"].strip()
        return Fact(facts)
    if attendance := ATTENDANCE.match(text):
        kind = attendance["kind"].lower()
        return Fact({"attendance": "virtual" if kind == "virtual" else "in person"})
    if len(text) <= 40 and (badge := BADGE.match(text)) and (badge["decision"] or badge["kind"]):
        return _badge_fact(badge)
    if len(text) <= 80 and AWARD.match(text.rstrip(":")):
        return Fact(awards=(text.rstrip(":").strip(),))
    if POSTER_NUMBER.match(text) or TIME_LINE.match(text) or BRACKET_LINKS.match(text):
        return Fact()
    if room := ROOM.match(text):
        return Fact({"room": room["room"]})
    return None


def _badge_fact(badge: re.Match[str]) -> Fact:
    decision, kind = badge["decision"], badge["kind"]
    if decision and kind:
        return Fact({"decision": decision.capitalize(), "presentation": kind.capitalize()})
    word = (decision or kind).capitalize()
    if word in ("Poster", "Talk", "Presentation", "Paper"):
        return Fact({"presentation": word})
    return Fact({"decision": word})


# --- author lists -------------------------------------------------------------------------

BY_PREFIX = re.compile(r"^(?:by|authors?\s*[:：])\s+", re.IGNORECASE)
NAME_WORD = re.compile(
    r"^(?:[^\W\d_]\.-?){1,3}$"  # initials: J. or J.R. or C.-C.
    r"|^[^\W\d_][^\W\d_'’.-]*(?:['’.-][^\W\d_]+)*(?:\.|['’])?$"  # and Mulang'
)
PARTICLES = frozenset(
    "van von der den de del della di da das dos du la le ten ter bin binti al el y zu".split()
)
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060\ufeff]")  # zero-width and direction marks
ET_AL = re.compile(r",?\s+et\s+al\.?$", re.IGNORECASE)


@dataclass(frozen=True)
class Person:
    name: str
    affiliation: str = ""


def person_of(text: str) -> Person | None:
    """A personal name, with its affiliation when one trails it in parentheses ("A (MIT)*");
    None when the words are not a name's. Parentheses inside a name are a nickname."""
    name, affiliation = clean_name(text.strip().strip(",;"))
    if not name or not looks_like_name(name):
        return None
    return Person(name, affiliation)


def looks_like_name(text: str) -> bool:
    words = text.replace("(", " ").replace(")", " ").split()
    if not 1 <= len(words) <= 6 or len(text) > 60:
        return False
    capitals = 0
    for position, word in enumerate(words):
        lower = word.lower()
        if lower in PARTICLES and 0 < position < len(words) - 1:
            continue
        if len(word) == 1 and word.isupper() and position < len(words) - 1:
            capitals += 1  # an initial without its dot ("A Gretton"), not the article
            continue
        if not NAME_WORD.match(word) or lower in TITLE_WORDS:
            return False
        if lower in FUNCTION_WORDS and (position == 0 or word[0].islower()):
            return False
        capitals += word[0].isupper()
    return capitals >= 1 or all(w.islower() for w in words) and len(words) >= 2


SEPARATORS = (
    re.compile(r"\s*[·⋅•∙]\s*"),
    re.compile(r"\s*;\s*"),
    re.compile(r"\s*\|\s*"),
    re.compile(r",?\s+and\s+|\s*,\s*|\s+&\s+"),
)


def author_list(text: str, lenient: bool = False, share: float = 0.7) -> list[Person] | None:
    """The people of an author line, split by the separator the line uses; None when the line
    is not wholly names (a title with commas, a sentence). `lenient` (a line the page set
    apart as authors, e.g. in italics) takes it when `share` of the parts are names ("Or
    Honovich" is not, by the words alone)."""
    text = INVISIBLE.sub("", text)
    text = ET_AL.sub("", BY_PREFIX.sub("", text.strip())).strip().rstrip(".,;-–— ")
    if not text or len(text) > 3000:
        return None
    for separator in SEPARATORS:
        parts = [part for part in separator.split(text) if part.strip()]
        if len(parts) < 2 and separator is not SEPARATORS[-1]:
            continue
        people = _all_people(parts)
        if people is not None:
            return people
        if (lenient or separator is SEPARATORS[0]) and len(parts) >= 2:
            return _lenient(parts, share)
    return None


def _all_people(parts: list[str]) -> list[Person] | None:
    """Each part as a person, or None at the first part that is not one (most lines of a
    program are not author lists, and an abstract has hundreds of parts)."""
    people = []
    for part in parts:
        person = person_of(part)
        if person is None:
            return None
        people.append(person)
    return people


def _lenient(parts: list[str], share: float) -> list[Person] | None:
    """On a `·`-separated line, names a stricter test doubts ("Sam McCandlish III") still count
    when most parts are names."""
    people = [person_of(part) for part in parts]
    if sum(1 for p in people if p) >= share * len(parts):
        return [p or _doubted_person(part) for p, part in zip(people, parts, strict=True)]
    return None


def _doubted_person(part: str) -> Person:
    """A part taken as a name on the strength of its neighbours, its affiliation set apart."""
    name, affiliation = clean_name(part.strip().strip(",;"))
    return Person(name or part.strip(), affiliation)


def title_text(text: str) -> str:
    """A title without the rank and popularity count a listing sets around it."""
    return TITLE_POPULARITY.sub("", TITLE_RANK.sub("", text)).strip() or text


__all__ = [
    "Fact",
    "Person",
    "author_list",
    "fact_of",
    "title_text",
    "is_chrome",
    "is_prose",
    "LABEL",
    "LINK_LINE",
    "ASIDE_HEADINGS",
]
