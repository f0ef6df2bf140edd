"""Find the contacts and groups a request names, fuzzily, with rapidfuzz. Pure: no Django.

Every contact and group is known by several *aliases*: "김민지 (Kim Minji)" by that, by
"김민지", "Kim Minji", "Kim", "Minji" and "민지"; "Parents - Class A" by its words and by the
same words reached from Korean ("A반 학부모" → "class a parents"). The head of the request is
scanned for windows of words close to an alias. A longer match wins over a shorter one inside
it ("Emma Wilson" over "Emma"), a literal match over one through the Korean glossary, and when
several entries match the same words equally well the request is ambiguous: the caller asks
"Did you mean …?" instead of picking one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from chat.builtin_model.understanding.directory import ContactEntry, Directory
from chat.builtin_model.understanding.sounds import sounds_like

_WORD = re.compile(r"[\w+@.-]+", re.UNICODE)
_PHONE = re.compile(r"(?<![\w])\+?\d[\d\s().-]{5,}\d(?![\w])")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ME = re.compile(
    # The writer is a recipient only where "me" is what a verb of sending reaches ("remind me",
    # "email me the list", "copy me in", "send it to me", "text Emma and me"). Anywhere else "me"
    # belongs to the story ("it took me all weekend", "Yuna lent me her book", "typical me") or
    # to the asking ("let me know", "help me send", "email James for me", "Emma asked me to").
    r"(?<!\bbetween you )\b(?:remind|e-?mail|mail|text|txt|sms|telegram|tg|message|msg|ping|"
    r"notify|alert|send|"
    r"drop|shoot|cc|bcc|copy|include|forward|dm|buzz|inform|to|and|&)\s+(?:me|myself)\b"
    r"(?! a favou?r| a hand| a sec)"
    r"|(?:^|\s)(?:나|저|내|제)(?:에게|한테)|(?:^|\s)(?:내게|제게)",
    re.IGNORECASE,
)
# A name in the possessive is someone the message is about, unless it names their family or
# their address ("Minji's mom", "Oliver's phone"): those are how staff name a recipient.
_POSSESSIVE = re.compile(
    r"\b[A-Za-z]+['’]s\b(?!\s+(?:mom|mum|mother|dad|father|parents?|family|guardian|"  # noqa: RUF001
    r"grandma|grandmother|grandpa|grandfather|aunt|uncle|folks|"
    r"phone|mobile|cell|number|e-?mail|inbox|address|telegram))",
    re.IGNORECASE,
)
_PARTICLE_LIST = (
    "에게서 에게는 에게도 한테는 한테도 에게 한테 께서 께 님께 님들께 님들에게 님들한테 님에게 "
    "님한테 님들 님 씨 들 이랑 랑 하고 와 과 을 를 은 는 이 가 도 의 으로 로 에는 에 "
    "에게만 한테만 께만 만 네"  # "서준이네": the family of
)
_KO_PARTICLES = tuple(sorted(_PARTICLE_LIST.split(), key=len, reverse=True))
# Korean words for the kinds of groups organisations keep, read as the English group names.
_GLOSSARY = {
    "학부모": "parents",
    "부모": "parents",
    "부모님": "parents",
    "선생님": "teachers",
    "교사": "teachers",
    "강사": "teachers",
    "선생": "teachers",
    "쌤": "teachers",  # spoken "선생님": "쌤들한테 문자 돌려줘"
    "샘": "teachers",  # "쌤" as often typed: "샘들 단체문자 ㄱㄱ"
    "간호사": "nurses",
    "환자": "patients",
    "학생": "students",
    "직원": "staff",
    "월요일": "monday",
    "화요일": "tuesday",
    "수요일": "wednesday",
    "목요일": "thursday",
    "금요일": "friday",
}
# The kinds of groups in English, as group names spell them ("Parents - Class A").
GROUP_KINDS = frozenset(v for v in _GLOSSARY.values() if not v.endswith("day"))
# How one addresses a person by surname ("박 선생님", "최쌤", "김 씨"): the title follows the
# surname, and the pair means one person, never the group the title also names.
_TITLES = (
    "선생님", "선생", "쌤", "샘", "원장님", "부장님", "실장님", "팀장님", "과장님", "교수님",
    "어머님", "아버님", "어머니", "아버지", "학부모님", "부모님", "엄마", "아빠", "맘", "씨", "님",
)  # fmt: skip
_KO_CLASS = re.compile(r"^([a-z0-9])반$")
_ATTACHED_TITLES = sorted(
    (t for t in _TITLES if len(t) > 1 or t in "쌤샘맘"), key=len, reverse=True
)
_FILLER = frozenset({"of", "the", "in", "from", "for", "all", "group"})
_LITERAL, _GLOSSED, _HEARD = 100.0, 95.0, 90.0
_PART = 85.0  # a group named by the part of its name that tells it apart
# Everyday words of Korean requests that happen to share a consonant skeleton with a name
# ("내일" with Neil, "문자해줘" with Minji): never read as a name heard in Hangul.
_NOT_NAMES = (
    "오늘", "내일", "모레", "오전", "오후", "아침", "저녁",
    "문자", "메일", "메시지", "이메일", "공지", "알림", "좀", "텔레", "텔그", "텔레그램",
    # the verbs of a request ("회의록 돌려야 되는데" is not Taylor)
    "돌려", "올려", "알려", "넣어", "남겨", "전해", "보내", "띄워", "걸어", "드려", "드리", "드릴",
    "달려", "들려", "들어", "돌아", "달라", "털어", "덜어", "데리", "데려",
    # how to send it ("이대로 보내줘" is not Taylor)
    "이대로", "그대로", "이렇게", "그렇게",
)  # fmt: skip
_HANGUL = re.compile(r"[가-힣]")
_MIN_SCORE = 80.0
# Recipients are named near the start of a request; scanning a pasted letter would only cost
# time (every alias against every window) and find names that are not recipients.
_MAX_WORDS = 60


@dataclass(frozen=True)
class Hit:
    """One directory entry matching words ``start``..``end`` of the head."""

    name: str
    kind: str  # "contact" | "group"
    start: int
    end: int
    score: float


@dataclass
class Found:
    """What the head names: resolved names, raw addresses, ambiguities, and "me"."""

    names: list[str] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)
    ambiguous: list[list[str]] = field(default_factory=list)
    me: bool = False
    end: int = 0  # where in the head the last named contact or group ends (a character index)
    # People named by their role in a group ("A반 담임 선생님", "the class B homeroom
    # teacher"): one person the directory cannot tell, never the group or the teachers.
    described: list[str] = field(default_factory=list)

    @property
    def anyone(self) -> bool:
        return bool(self.names or self.addresses or self.ambiguous or self.me)


def words(text: str) -> list[str]:
    return [word for word, _ in _words_at(text)]


def _words_at(text: str) -> list[tuple[str, int]]:
    """Each word with the index just past it in ``text``."""
    found = ((m.group(0).strip(".-"), m.end()) for m in _WORD.finditer(text))
    return [(word, end) for word, end in found if word]


def variants(word: str) -> list[str]:
    """A word as typed and without its Korean particle ("민지에게" → "민지")."""
    lowered = word.lower()
    out = [lowered]
    for particle in _KO_PARTICLES:
        if lowered.endswith(particle) and len(lowered) > len(particle):
            out.append(lowered[: -len(particle)])
            out.extend(v for v in variants(lowered[: -len(particle)])[1:] if v not in out)
            break
    return out


def _untitled(forms: list[str]) -> list[str]:
    """A word's forms and, for a name written together with its title ("유나쌤", "제임스쌤한테",
    "민지어머님"), the name alone; a one-syllable rest is a surname (see ``_titled_surnames``)."""
    out = list(forms)
    for form in forms:
        for title in _ATTACHED_TITLES:
            at = form.find(title, 2)
            rest, particle = form[:at], form[at + len(title) :]
            named = _HANGUL.match(rest) or (rest.isascii() and rest.isalpha())  # "유나", "yuna"
            if at >= 2 and len(particle) <= 3 and named and rest not in out:
                # "서준이어머님": the name keeps the 이 a name ending in a consonant takes
                out.extend(form for form in variants(rest) if form not in out)
                break
    return out


def gloss(word: str) -> str:
    """A Korean group word as the English word group names use ("학부모님들" → "parents",
    "B반" → "class b"); any other word lower-cased."""
    for form in variants(word):
        if form in _GLOSSARY:
            return _GLOSSARY[form]
        klass = _KO_CLASS.match(form)
        if klass:
            return f"class {klass.group(1)}"
    return word.lower()


def contact_aliases(name: str) -> list[tuple[str, ...]]:
    """ "김민지 (Kim Minji)" → its full name, each script's name, each word, the Korean given
    name, a Latin name's words run together; each alias as a tuple of lower-case words."""
    aliases: list[tuple[str, ...]] = [tuple(words(name.lower()))]
    parts = [p.strip() for p in re.split(r"[()]", name) if p.strip()]
    for part in parts:
        tokens = tuple(words(part.lower()))
        aliases.append(tokens)
        aliases.extend((token,) for token in tokens)
        if len(tokens) == 1 and re.fullmatch(r"[가-힣]{3}", tokens[0]):
            aliases.append((tokens[0][1:],))  # 김민지 → 민지
        if len(tokens) > 1 and all(t.isascii() for t in tokens):
            # "올리버브라운": a whole Latin name heard and written as one Hangul word
            aliases.append(("".join(tokens),))
    return list(dict.fromkeys(a for a in aliases if a))


def group_aliases(name: str) -> list[tuple[tuple[str, ...], float]]:
    literal = tuple(words(name.lower()))
    glossed = tuple(w for w in " ".join(gloss(w) for w in literal).split() if w not in _FILLER)
    return [(literal, _LITERAL), (glossed, _GLOSSED)]


def _similar(alias: str, word: str, *, heard: bool = False) -> float:
    """How alike an alias word and a head word are (0..100). ``heard``: the contact has no
    Hangul name of its own, so a Hangul spelling of its Latin name may stand for it."""
    if heard and not word.startswith(_NOT_NAMES) and sounds_like(alias, word):
        return _HEARD  # "제임스" for James: below a literal match, above the cut-off
    if len(alias) <= 4 or len(word) <= 4:
        return 100.0 if alias == word else 0.0
    if alias[0] != word[0] and alias.isascii() and word.isascii():
        # A slip of the keys rarely hits a name's first letter, and everyday words one letter
        # from a name do: "need names for the team sheet" is not James, nor "games" either.
        return 0.0
    return float(fuzz.ratio(alias, word))


def _window_score(alias: tuple[str, ...], window: list[list[str]], *, heard: bool = False) -> float:
    """How well consecutive head words (each with its variants) spell ``alias``."""
    total = 0.0
    for wanted, forms in zip(alias, window, strict=True):
        best = max(_similar(wanted, form, heard=heard) for form in forms)
        if best < _MIN_SCORE:
            return 0.0
        total += best
    return total / len(alias)


def _contact_hits(directory: Directory, head: list[list[str]]) -> Iterator[Hit]:
    for contact in directory.contacts:
        heard = not _HANGUL.search(contact.name)
        for alias in contact_aliases(contact.name):
            for start in range(len(head) - len(alias) + 1):
                score = _window_score(alias, head[start : start + len(alias)], heard=heard)
                if score:
                    yield Hit(contact.name, "contact", start, start + len(alias), score)


# "Seojun's parent", "seojun lees parent", "서준이 학부모님께": the family of the contact just
# named (contacts are the families), never the group of all parents.
_RELATIONS = frozenset({"parent", "parents", "family", "guardian", "guardians", "folks"})


def _without_relations_of_the_named(hits: list[Hit], tokens: list[str]) -> list[Hit]:
    ends = {hit.end for hit in hits if hit.kind == "contact"}
    for hit in hits:  # "Seojun's parent" (the "s" a word of its own), "seojun lees parent"
        after = tokens[hit.end].lower() if hit.kind == "contact" and hit.end < len(tokens) else ""
        own = {w.lower() for w in re.findall(r"\w+", hit.name)}
        if after == "s" or (after.endswith("s") and after[:-1] in own):
            ends.add(hit.end + 1)
    return [
        hit
        for hit in hits
        if not (
            hit.kind == "group"
            and hit.start in ends
            and all(
                t.lower() in _RELATIONS or gloss(t) in _RELATIONS
                for t in tokens[hit.start : hit.end]
            )
        )
    ]


def _group_hits(directory: Directory, head: list[str]) -> Iterator[Hit]:
    literal = [(i, variants(w)) for i, w in enumerate(head)]
    glossed = [(i, [g]) for i, w in enumerate(head) for g in gloss(w).split() if g not in _FILLER]
    for group in directory.groups:
        for alias, weight in group_aliases(group):
            if alias:
                yield from _ordered_group_hits(
                    group, alias, weight, literal if weight == _LITERAL else glossed
                )
    stripped = [(i, [*forms, variants(forms[0])[-1]]) for i, forms in glossed]  # "Class B에"
    yield from _lettered_hits(directory, head)
    for group, part in _telling_parts(directory):
        for first in range(len(stripped) - len(part) + 1):
            window = stripped[first : first + len(part)]
            if _words_cover(part, [f for _, f in window]):
                yield Hit(group, "group", window[0][0], window[-1][0] + 1, _PART)


# Single letters that are English words, never a class's letter alone: "a parents' evening".
_WORD_LETTERS = frozenset({"a", "i"})


def _lettered_hits(directory: Directory, head: list[str]) -> Iterator[Hit]:
    """ "text b parents asap": a group's one-letter part right before another word of its name,
    with "class" left out; the letter alone tells the group apart."""
    aliases = {group: group_aliases(group)[1][0] for group in directory.groups}
    for index in range(len(head) - 1):
        letter, kind = head[index].lower(), gloss(head[index + 1]).lower()
        if len(letter) != 1 or not letter.isascii() or not letter.isalpha():
            continue
        if letter in _WORD_LETTERS or kind == letter:
            continue
        owners = [group for group, alias in aliases.items() if letter in alias and kind in alias]
        if len(owners) == 1:
            yield Hit(owners[0], "group", index, index + 2, _PART)


def _telling_parts(directory: Directory) -> list[tuple[str, tuple[str, ...]]]:
    """Each group's name part that no other group has ("Class B" of "Parents - Class B"): staff
    name a group by it ("text class B", "B반에 문자"). Parts shared by several ("Parents") and
    one-word parts ("B") tell nothing."""
    owners: dict[tuple[str, ...], list[str]] = {}
    for group in directory.groups:
        for part in re.split(r"\s+-\s+|\s*[/:|]\s*", group):
            glossed = tuple(
                w
                for w in " ".join(gloss(w) for w in words(part.lower())).split()
                if w not in _FILLER
            )
            if len(glossed) > 1 and part != group:
                owners.setdefault(glossed, []).append(group)
    return [(groups[0], part) for part, groups in owners.items() if len(groups) == 1]


def _ordered_group_hits(
    group: str, alias: tuple[str, ...], weight: float, forms: list[tuple[int, list[str]]]
) -> Iterator[Hit]:
    """Windows holding every word of the alias in any order ("class A parents"), ignoring
    fillers ("parents of class A"); a window with only the alias's first word ("parents")
    is a weaker hit, so two groups starting with it become a question."""
    for first in range(len(forms) - len(alias) + 1):
        window = forms[first : first + len(alias)]
        if window[0][1][:1] == ["a"] and len(alias) > 1:
            continue  # "a parent in class B": the article, not class A's letter
        if _words_cover(alias, [f for _, f in window]):
            yield Hit(group, "group", window[0][0], window[-1][0] + 1, weight)
    if len(alias) > 1 and weight == _GLOSSED:
        for index, word_forms in forms:
            if _words_cover(alias[:1], [word_forms]):
                yield Hit(group, "group", index, index + 1, 60.0)


def _words_cover(alias: tuple[str, ...], window: list[list[str]]) -> bool:
    remaining = list(window)
    for wanted in alias:
        match = next(
            (forms for forms in remaining if any(_similar(wanted, f) >= _MIN_SCORE for f in forms)),
            None,
        )
        if match is None:
            return False
        remaining.remove(match)
    return True


def _pick(hits: Iterable[Hit]) -> list[list[Hit]]:
    """Longest, best hits first; a hit inside words already claimed is dropped unless it ties
    the claiming hit exactly (then both are candidates for those words)."""
    ordered = sorted(hits, key=lambda h: (-(h.end - h.start), -h.score, h.start, h.name))
    claimed: list[list[Hit]] = []
    for hit in ordered:
        overlapping = [c for c in claimed if hit.start < c[0].end and c[0].start < hit.end]
        if not overlapping:
            claimed.append([hit])
            continue
        for candidates in overlapping:
            top = candidates[0]
            same = (hit.start, hit.end, hit.score) == (top.start, top.end, top.score)
            if same and hit.name not in {c.name for c in candidates}:
                candidates.append(hit)
    return sorted(claimed, key=lambda c: c[0].start)


def _titles_dropped(picked: list[list[Hit]], tokens: list[str]) -> list[list[Hit]]:
    """A Korean title right after a person's bare name ("제임스 선생님한테", "박지우 학부모님께")
    is how one addresses that person, not the group of teachers or parents: drop such a group
    hit unless the word is plural ("유나랑 선생님들한테" names both). So is a singular word
    right before the name ("teacher James 에게")."""
    kept: list[list[Hit]] = []
    for index, candidates in enumerate(picked):
        top = candidates[0]
        previous = kept[-1][0] if kept else None
        following = picked[index + 1][0] if index + 1 < len(picked) else None
        one_word = top.kind == "group" and top.end == top.start + 1
        after_name = (
            top.score < _LITERAL
            and previous is not None
            and previous.kind == "contact"
            and top.start == previous.end
            and variants(tokens[previous.end - 1])[-1] == tokens[previous.end - 1].lower()
            and "들" not in tokens[top.start]
        )
        before_name = (
            following is not None
            and following.kind == "contact"
            and following.start == top.end
            and _singular(tokens[top.start])
        )
        # "Ms Choi Yuna, the science teacher", "Emma, the class B parent rep": one person's
        # role said after her name, in the singular
        appositive = (
            top.kind == "group"
            and previous is not None
            and previous.kind == "contact"
            and 0 < top.start - previous.end <= 3
            and tokens[top.end - 1].isascii()
            and _singular(tokens[top.end - 1])
            and not {t.lower() for t in tokens[previous.end : top.start]} & _JOINING
        )
        if not ((one_word and (after_name or before_name)) or appositive):
            kept.append(candidates)
    return kept


_JOINING = frozenset({"and", "&", "or", "plus", "also", "with"})


def _singular(word: str) -> bool:
    """ "teacher", "parent", "선생님": one person's role, not the group ("teachers", "선생님들")."""
    lowered = word.lower()
    return "들" not in lowered and not (lowered.isascii() and lowered.endswith("s"))


def _is_title(word: str, *, alone: bool) -> bool:
    """``word`` (a particle allowed after it) is a title; written ``alone`` after a surname
    it may be any title, written together with it only one of two or more syllables ("박님"
    and "손님" are too easily other words)."""
    if "들" in word:
        return False  # "선생님들께" addresses the teachers
    titles = _TITLES if alone else [t for t in _TITLES if len(t) > 1 or t in ("쌤", "샘")]
    return any(form in titles for form in variants(word))


# Words before "선생님" that say which teachers, not who: "전체 선생님", "모든 선생님".
_NOT_A_NAME_BEFORE_A_TITLE = frozenset(
    {"전체", "모든", "모두", "우리", "저희", "각", "다른", "여러", "전", "우리반", "담당"}
)
_ONE_TEACHER = re.compile(r"^(?:선생님|쌤|선생|교사)(?:께서?|한테|에게|이|은|는|을|를|도)?$")
# …and the same title as the one a message goes to ("선생님 그룹 명단" names the group)
_TO_ONE_TEACHER = re.compile(r"^(?:선생님|쌤|선생|교사)(?:께|한테|에게)(?:는|도|만)?$")


def _one_of_the_group(hit: Hit, tokens: list[str]) -> bool:
    """One member of a group, not the group: a teacher's title alone, in the singular
    ("선생님에게", "쌤한테", "msg the teacher re: keys") with no word before it saying which
    teachers ("전체 선생님께", "every teacher"), or a group with "one of" it ("A반 어머님 한 분이
    …", "one of the class A parents")."""
    if hit.kind != "group":
        return False
    if _one_counted_after(tokens, hit.end) or _one_of_before(tokens, hit.start):
        return True
    if hit.end != hit.start + 1:
        return False
    word, before = tokens[hit.start], tokens[hit.start - 1].lower() if hit.start else ""
    if _ONE_TEACHER_EN.match(word):
        return before not in _EVERY_EN
    if not _TO_ONE_TEACHER.match(word):
        return False
    return hit.start == 0 or before not in _NOT_A_NAME_BEFORE_A_TITLE


def _all_of_them(hit: Hit, tokens: list[str]) -> bool:
    """ "all parents", "all the parents", "every parent", "모든 학부모님": said of a word that
    names several groups, it names them all; not when they are what the message tells of ("…we'll
    make sure every parent here knows", "…that every parent needs to bring a dish")."""
    before = [t.lower() for t in tokens[max(0, hit.start - 2) : hit.start]]
    if not _ALL_BEFORE & set(before) or "one" in before or "of" in before[-1:]:
        return False
    after = {t.lower() for t in tokens[hit.end : hit.end + 2]}
    return not after & _VERBS_OF_A_SUBJECT


_ALL_BEFORE = frozenset({"all", "every", "both", "모든", "전체"})
_VERBS_OF_A_SUBJECT = frozenset(
    {
        "know",
        "knows",
        "need",
        "needs",
        "must",
        "should",
        "will",
        "has",
        "have",
        "is",
        "are",
        "was",
        "were",
        "get",
        "gets",
        "hear",
        "hears",
        "find",
        "finds",
        "can",
        "may",
        "do",
        "does",
    }
)


def _one_counted_after(tokens: list[str], end: int) -> bool:
    """ "A반 (어머님) 한 분", "학부모 한 명", "쌤 한명한테만", "B반 학부모님 중에 한 분": one of
    the group, counted right after its name."""
    at = end + 1 if end < len(tokens) and _MEMBER_KO.match(tokens[end]) else end
    at += 1 if tokens[at : at + 1] in (["중에"], ["중"], ["중에서"]) else 0
    if tokens[at : at + 1] == ["한"]:
        return tokens[at + 1 : at + 2] != [] and tokens[at + 1].startswith(("분", "명"))
    return at < len(tokens) and tokens[at].startswith(("한분", "한명"))


def _one_of_before(tokens: list[str], start: int) -> bool:
    """ "one of the class A parents", "one of our teachers"; "the mom from class A", "a parent
    in class B" (one parent, said in the singular, of the group)."""
    before = [t.lower() for t in tokens[max(0, start - 3) : start]]
    if before in (["one", "of", "the"], ["one", "of", "our"]):
        return True
    if before[-1:] in (["the"], ["a"], ["that"]) and tokens[start].lower() in _ONE_PARENT_EN:
        return True  # "a parent in class B", read as one window of the group's name
    return (
        len(before) == 3
        and before[0] in ("the", "a", "that")
        and before[1] in _ONE_PARENT_EN
        and before[2] in ("from", "in", "of")
    )


_ONE_PARENT_EN = frozenset(
    {"mom", "mum", "mother", "dad", "father", "parent", "guardian", "mama", "papa"}
)


_MEMBER_KO = re.compile(r"^(?:어머님|어머니|아버님|아버지|학부모님?|부모님|선생님|학생)$")
_ONE_TEACHER_EN = re.compile(r"^(?:teacher|tutor|instructor)$", re.IGNORECASE)
_EVERY_EN = frozenset({"every", "each", "any", "all"})


def _titles_of_unknown_names(tokens: list[str]) -> set[int]:
    """ "에밀리 선생님에게 문자": a name, then one teacher's title. The title is that person's,
    not the Teachers group's; when the directory does not know the name, nobody is found and
    the request asks who is meant."""
    return {
        index
        for index in range(1, len(tokens))
        if _ONE_TEACHER.match(tokens[index])
        and re.fullmatch(r"[가-힣]{2,4}", tokens[index - 1])
        and tokens[index - 1] not in _NOT_A_NAME_BEFORE_A_TITLE
        # "08시 정각에 교사 전원에게": a word with a particle of time or place names nobody
        and not tokens[index - 1].endswith(_PARTICLES_OF_TIME_AND_PLACE)
    }


_PARTICLES_OF_TIME_AND_PLACE = ("에", "에서", "까지", "부터")


def _titled_surnames(directory: Directory, tokens: list[str]) -> tuple[list[Hit], set[int]]:
    """Contacts named by surname and title ("박 선생님께", "최선생님한테"), and the word
    positions such a pair covers (no group may be read there, even when no contact has it)."""
    hits: list[Hit] = []
    covered: set[int] = set()
    for index, token in enumerate(tokens):
        if re.fullmatch(r"[가-힣]", token) and index + 1 < len(tokens):
            surname, span = token, (index, index + 2)
            if not _is_title(tokens[index + 1], alone=True):
                continue
        elif (
            _HANGUL.match(token)
            and len(token) > 1
            and not _is_title(token, alone=True)  # "학부모님": a title, not 학 + 부모님
            and _is_title(token[1:], alone=False)
        ):
            surname, span = token[0], (index, index + 1)
        else:
            continue
        covered.update(range(*span))
        title = tokens[index + 1] if span[1] - span[0] == 2 else token[1:]
        for contact in directory.contacts:
            korean = re.findall(r"[가-힣]{3}", contact.name)
            if any(name.startswith(surname) for name in korean) and _may_be(contact, title):
                hits.append(Hit(contact.name, "contact", span[0], span[1], _LITERAL))
    return hits, covered


# A title says which kind of person it is: "박 선생님" is a teacher called Park, never Park
# Jiwoo the parent; "김 어머님" a parent. The kind is read from the contact's groups ("Teachers",
# "Parents - Class A"); a contact in no group may be anyone.
_TITLE_KINDS = {
    **dict.fromkeys(("선생님", "선생", "쌤", "샘", "교수님"), ("teacher", "staff", "faculty")),
    **dict.fromkeys(
        ("어머님", "아버님", "어머니", "아버지", "학부모님", "부모님", "엄마", "아빠", "맘"),
        ("parent",),
    ),
}


def _may_be(contact: ContactEntry, title: str) -> bool:
    kinds = next((_TITLE_KINDS[f] for f in variants(title) if f in _TITLE_KINDS), None)
    if kinds is None or not contact.groups:
        return True
    return any(kind in group.lower() for group in contact.groups for kind in kinds)


# "선생님, 바쁘신데 죄송하지만요…": the reader called by a title, not a recipient.
_CALLED_BY_TITLE = re.compile(r"^\s*(?:선생님|쌤|실장님|원장님|부장님|팀장님)\s*[,，…]")  # noqa: RUF001
_DESCRIBED = re.compile(
    r"(?:[A-Za-z0-9]\s?반\s*)?담임\s*(?:선생님|선생|쌤|교사)?|"
    # one member of a group, unnamed, addressed: "선생님 한 분께", "one of the teachers" ("학부모님
    # 한 분이 물어보셨는데" is who asked, not who to send to)
    r"(?:선생님|선생|쌤|교사|학부모님?|어머님)(?:들)?\s*(?:중(?:에)?\s*)?한\s*분(?=께|한테|에게)|"
    r"\bone of (?:the|our|my) (?:teachers|parents|staff)\b|"
    # "선생님한테 … 전체 말고 한 분한테만": one of them, unnamed
    r"(?:전체\s*말고\s*)?한\s*분(?:한테|께|에게)만|"
    # "쌤한테 문자 좀": one teacher, unnamed ("유나 쌤한테" names her)
    r"(?:^|(?<=[.!?,]\s))쌤(?=한테|께|에게)|"
    # "sms the teacher: room changed to 6", "a message to the teacher": one teacher, unnamed
    # ("the teachers" are the group)
    r"(?:(?<=sms )|(?<=text )|(?<=txt )|(?<=email )|(?<=e-mail )|(?<=mail )|(?<=message )|"
    r"(?<=telegram )|(?<=tell )|(?<=ping )|(?<=\bto ))the\s+teacher\b(?!s|'s|\u2019s)|"
    r"\b(?:(?:the|our|my)\s+)?(?:class\s+[a-z0-9]\s+|[a-z0-9]\s+class\s+)?(?:homeroom|form)\s+"
    r"(?:teacher|tutor)\b",
    re.IGNORECASE,
)


# "the parent portal", "parents' evening", "teacher training": a kind of group before a noun
# names a thing of theirs, not the people.
_THINGS_OF_A_GROUP = frozenset(
    [
        "portal",
        "evening",
        "evenings",
        "night",
        "meeting",
        "meetings",
        "conference",
        "conferences",
        "handbook",
        "app",
        "association",
        "council",
        "newsletter",
        "survey",
        "consultation",
        "consultations",
        "lounge",
        "training",
        "workshop",
        "feedback",
        "account",
        "login",
        "orientation",
        "day",
        "days",
        "room",
    ]
)


# "학부모 상담 주간", "선생님 연수": the same in Korean, the group's word bare (no "께", "한테")
# before an event of theirs.
_THINGS_OF_A_GROUP_KO = (
    "상담", "면담", "총회", "회의", "설명회", "간담회", "모임", "연수", "참관", "공개수업",
    "게시판", "단톡", "주간", "행사", "교육", "설문", "만족도", "동의서", "참여", "대표", "회비",
)  # fmt: skip
_ADDRESSED_KO = ("께", "에게", "한테", "님들", "들")


# "his headlights are on in the car park", "dont park there": a name after an article, a noun
# of its own or a "not" is a word of the sentence ("Park" of Park Jiwoo), unless what follows
# makes it a family ("the Brown family", "the Browns' kid").
_BEFORE_A_THING = frozenset(
    {"a", "an", "the", "car", "our", "every", "dont", "not", "never", "cant"}
)
_A_FAMILY_AFTER = _RELATIONS | {"household", "kids", "kid", "children", "child", "boy", "girl"}


def _names_a_thing(hit: Hit, tokens: list[str]) -> bool:
    if hit.kind == "contact" and hit.end - hit.start == 1 and hit.start > 0:
        before = tokens[hit.start - 1].lower()
        after = tokens[hit.end].lower() if hit.end < len(tokens) else ""
        return before in _BEFORE_A_THING and after not in _A_FAMILY_AFTER
    if hit.kind != "group" or hit.end - hit.start != 1 or hit.end >= len(tokens):
        return False
    after = tokens[hit.end].lower()
    if after in _THINGS_OF_A_GROUP:
        return True
    own = tokens[hit.start]
    return after.startswith(_THINGS_OF_A_GROUP_KO) and not own.endswith(_ADDRESSED_KO)


# "two class A families still haven't paid": a count before a group is some of its members,
# not the group ("all three teachers", "both parents" are the whole of it).
_SOME = frozenset({"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}) | {
    "some",
    "several",
    "few",
}


def _without_counted_parts(hits: list[Hit], tokens: list[str]) -> list[Hit]:
    """``hits`` without the group words of a counted part ("a few Class A parents": neither
    "Class A" nor "parents" is the group)."""
    counted: set[int] = set()
    for hit in sorted((h for h in hits if h.kind == "group"), key=lambda h: h.start):
        if _some_of(hit, tokens) or hit.start in counted or hit.start - 1 in counted:
            counted.update(range(hit.start, hit.end))
    return [h for h in hits if h.kind != "group" or not counted & set(range(h.start, h.end))]


def _some_of(hit: Hit, tokens: list[str]) -> bool:
    if hit.kind != "group" or hit.start == 0:
        return False
    count = tokens[hit.start - 1].lower()
    whole = hit.start > 1 and tokens[hit.start - 2].lower() in {"all", "the", "both", "these"}
    return (count in _SOME or count.isdigit()) and not whole


# People the writer leaves out: "no need to bother the parents with this one", "don't tell
# Emma yet", "everyone except the teachers", "A반 말고 B반에". Two words after the verb at most:
# what follows them is the rest of the sentence.
_LEFT_OUT = re.compile(
    r"\b(?:no need to|(?:please )?(?:don'?t|do not|never)|not)\s+"
    r"(?:bother|tell|include|copy|cc|text|e-?mail|message|send (?:it |this |that )?to)\s+"
    r"(?:the\s+)?[\w'-]+(?:\s+(?:[A-Z][\w'-]*|parents|teachers|group))?|"
    r"\b(?:except(?: for)?|but not|excluding|apart from|other than)\s+(?:the\s+)?[\w'-]+"
    r"(?:\s+(?:[A-Z][\w'-]*|parents|teachers|group))?|"
    r"(?:^|\s)[\w-]+(?:\s[\w-]+)?\s?(?:은|는)?\s?(?:말고|빼고|제외하고)(?=\s|$)",
    re.IGNORECASE,
)


def find_recipients(head: str, directory: Directory, *, spoken_of: bool = False) -> Found:
    """The contacts, groups, addresses and "me" that ``head`` names (see module docstring).

    ``spoken_of``: a name in the possessive counts too ("Mr Taylor's claim … write to him")."""
    found = _find(head, directory, spoken_of=spoken_of)
    return found if found.anyone else _glued(head, directory, spoken_of=spoken_of) or found


# Korean is often typed without its spaces: "a반학부모님들한테", "올리버브라운한테". A word
# with the particle of whom something goes to ("한테", "께", "에게") that names nobody is
# tried split in two, once at each place, when nothing else in the message names anyone.
_TO_WHOM = re.compile(r"([가-힣a-zA-Z0-9]{4,}?)((?:한테|께|에게)(?:는|도|만|로)?)(?![가-힣])")


def _glued(head: str, directory: Directory, *, spoken_of: bool) -> Found | None:
    for match in _TO_WHOM.finditer(head):
        stem = match.group(1)
        for cut in range(2, len(stem) - 1):
            at = match.start() + cut
            found = _find(f"{head[:at]} {head[at:]}", directory, spoken_of=spoken_of)
            if found.names:
                found.end = found.end - 1 if found.end > at else found.end
                return found
    return None


def _find(head: str, directory: Directory, *, spoken_of: bool) -> Found:
    found = Found(me=bool(_ME.search(head)))
    blank = lambda m: " " * len(m.group(0))  # noqa: E731 (keeps character positions)
    head = _CALLED_BY_TITLE.sub(blank, head)
    found.described = [m.group(0).strip() for m in _DESCRIBED.finditer(head)]
    head = _DESCRIBED.sub(blank, head)
    head = _LEFT_OUT.sub(blank, head)  # "(no need to bother the parents)": not to them
    for address in [*_PHONE.finditer(head), *_EMAIL.finditer(head)]:
        found.addresses.append(address.group(0).strip())
        found.end = max(found.end, address.end())
    if not spoken_of:
        head = _POSSESSIVE.sub(blank, head)  # "cover James's class": James is not asked
    located = _words_at(_EMAIL.sub(blank, _PHONE.sub(blank, head)))[:_MAX_WORDS]
    tokens = [word for word, _ in located]
    titled, covered = _titled_surnames(directory, tokens)
    covered |= _titles_of_unknown_names(tokens)
    hits = [*_contact_hits(directory, [_untitled(variants(t)) for t in tokens]), *titled]
    hits += [h for h in _group_hits(directory, tokens) if not covered & set(range(h.start, h.end))]
    hits = _without_relations_of_the_named(hits, tokens)
    hits = _without_counted_parts([h for h in hits if not _names_a_thing(h, tokens)], tokens)
    one_of: dict[tuple[str, ...], str] = {}  # members read for one of a group: the group
    for candidates in _titles_dropped(_pick(hits), tokens):
        names = list(dict.fromkeys(c.name for c in candidates))
        found.end = max(found.end, located[candidates[0].end - 1][1])
        if len(names) == 1 and _one_of_the_group(candidates[0], tokens):
            # "선생님에게 문자 보내 주세요": one teacher, not the Teachers group ("선생님들에게")
            members = directory.members(names)
            one_of[tuple(members)] = names[0]
            names = members or names
        if len(names) == 1:
            found.names.append(names[0])
        elif _all_of_them(candidates[0], tokens) and set(names) <= set(directory.groups):
            found.names.extend(names)  # "email all parents": every group the word names
        else:
            found.ambiguous.append(names)
    found.names = list(dict.fromkeys(found.names))
    # "the parents will forget … send it to the Class A parents": the words that name one group
    # settle what a looser mention left open, when the group is one of its readings.
    found.ambiguous = [names for names in found.ambiguous if not set(names) & set(found.names)]
    # "one of the Class A dads emailed me … could you text all the Class A parents": the group
    # named whole as well is who the message is for; the one of it was who wrote
    found.ambiguous = [
        names for names in found.ambiguous if one_of.get(tuple(names)) not in found.names
    ]
    return found
