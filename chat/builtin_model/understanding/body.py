"""Where a request says what to send: the message body, an e-mail subject, an announcement
title. Pure: no Django.

A request is split into its *head* (who, when, which channel: what the rest of the layer reads)
and its *body* (the words to deliver, kept as the person wrote them, apart from turning Korean
reported speech into the direct message). The body is found, in this order, in quotes, after a
colon, after "saying"-style markers, after "that", after "to <verb>" in a reminder, or, in
Korean, in the clause before the closing verb ("…라고 전해줘", "… 문자 보내줘").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_QUOTED = re.compile(r"[\"“”«»「『](?P<body>[^\"“”«»」』]{2,})[\"“”«»」』]")
# Korean writes quotes with apostrophes too ("… 텔레그램 가게 해줘 '내일 1교시 대강 부탁해요'"); in
# English an apostrophe is mostly "don't", so only a span holding Hangul counts. A Korean
# particle may follow the closing one ("'…출발합니다'라는 문자", "'…'이라고").
_KO_SINGLE_QUOTED = re.compile(r"(?<!\w)'(?P<body>[^']*[가-힣][^']*)'(?![A-Za-z0-9_])")
# A text of three words or more in single quotes ("don't" inside it is no quote).
_SINGLE_QUOTED_WORDS = re.compile(
    r"(?<!\w)'(?P<body>(?:[^'\s]|(?<=\w)'(?=\w))+(?:\s+(?:[^'\s]|(?<=\w)'(?=\w))+){2,})'(?!\w)"
)
_COLON = re.compile(r"(?<!\d)[:：]\s*")  # noqa: RUF001 (the full-width colon Korean IMEs type)
# Who "asking … to" asks: a pronoun, or everyone an announcement reaches ("asking every student
# to bring an old shirt").
_ASKED_PEOPLE = (
    r"(?:him|her|them|everyone|everybody|all|"
    r"(?:every|each) (?:student|parent|child|kid|family|teacher|pupil)|"
    r"(?:all (?:the )?|the )(?:students|parents|children|kids|families|teachers|pupils))"
)
_SAYING = re.compile(
    # "not sure what to say yet" says no text
    r"\s*\b(?:saying|that says|which says|with the (?:text|message)|with text|and say|"
    r"(?<!what )(?<!how )"
    # "…, I'm sorry to say.", "needless to say": how the writer feels about it, said to us
    r"(?<!sorry )(?<!sad )(?<!glad )(?<!happy )(?<!pleased )(?<!needless )(?<!have )(?<!must )"
    r"to say|"
    r"(?:just say|(?<=[.?!]\s)say)(?: that)?|"  # "Can you text Emma? Just say the trip is off."
    r"telling (?:him|her|them)(?: that)?|(?:,\s*|and )?tell (?:him|her|them)(?: that)?|"
    r"(?:reminding|remembering) (?:him|her|them)(?: that| about| of| to)?|"
    rf"asking {_ASKED_PEOPLE} to|"
    r"(?:,\s*|and |to )ask (?:him|her|them) to|"  # "email Emma and ask her to sign the form"
    r"(?:to )?(?:let|letting) (?:him|her|them) know(?: (?:kindly|politely|gently))?(?: that)?|"
    r"the message|message reads?|body|"
    r"(?:,\s*|and )?(?:something|sth|smth) (?:like|along the lines of)(?= ['\"‘“]))\b\s*:?\s*",  # noqa: RUF001
    re.IGNORECASE,
)
# "send Emma and Oliver an email, the class B newsletter …": the channel noun, a comma, the text.
_CHANNEL_COMMA = re.compile(
    r"^(?P<head>[^,]*?\b(?:an?|the)\s+(?:e-?mail|text(?: message)?|sms|message"
    r"|telegram(?: message)?|an+oun+cement|notice)(?:\s+(?:for|to)\s+[^,]{1,40})?),"
    r"\s+(?P<body>[^,].+)$",
    re.IGNORECASE,
)
# "…an email to Emma, Oliver and James": more recipients after the comma, not a text.
_MORE_NAMES = re.compile(r"^[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)?\s*(?:,|and\b|&)")
# A few words before a colon that ask for nothing ("Quick one:", "참고로:"), and a request
# that starts after it: the colon opens the request, it does not start the message.
_PREAMBLE = re.compile(r"^(?:\S+\s*){1,3}$")
_DASH = re.compile(r"\s+(?:--?|[–—/])\s+")  # noqa: RUF001 (en and em dashes; "--" typed for one)
_CHANNEL_WORD = re.compile(
    r"\b(?:announce(?:ment)?|notice|text|sms|e-?mail|message|telegram|remind(?:er)?)\b"
    r"|문자|메시지|메세지|텔레그램|텔레(?!비)|텔그|이메일|이멜|메일|공지|알림|리마인더",
    re.IGNORECASE,
)
_REQUEST_START = re.compile(
    r"\s*(?:please\s+|can you\s+|could you\s+)?(?:text|sms|send|email|e-mail|telegram|tell|"
    r"message|remind|announce|post|let)\b",
    re.IGNORECASE,
)
_CLOSING_THANKS = re.compile(
    r"(?:,\s*|\s+)(?:thanks?(?: you)?(?: so much| a lot)?|thx|ty|cheers|please|pls|plz)"
    r"\s*[.!~]*$",
    re.IGNORECASE,
)
# How a requester signs off to us ("Best wishes, Karen"); also read as mere courtesy when it is
# all there is after the recipients (``understand.py``).
SIGN_OFFS = r"best wishes|best regards|kind regards|regards|best|many thanks|sincerely"
# "…cash and cards are both accepted. Best wishes, Karen": the requester signing off to us.
_SIGNED_OFF = re.compile(
    rf"(?<=[.!?])\s+(?i:{SIGN_OFFS}|warm regards|cheers)\s*,?\s*(?:[A-Z][a-z]+)?\s*[.!]*$"
)
# "…must be brought to school on Thursday? Thank you very much for your help.": the request was
# the question, and the thanks after it are ours.
_THANKED_AFTER_ASKING = re.compile(
    r"(?<=\?)\s+(?i:thank you|thanks)(?:\s+(?i:very much|so much|a lot))?"
    r"\s+(?i:for your help|for the help|in advance)\s*[.!]*$"
)
# "'…2층 쓰세요' ← 이거 좀 다듬어서 올려줘요": an arrow back at the text; what follows asks us.
_POINTED_AT = re.compile(r"\s*(?:←|<-+|<=)\s*\S.*$")
# "email James for me please", "…, for me?": who the request is made for, not the text.
_ON_MY_BEHALF = re.compile(
    r"^(?:for (?:me|us)|on (?:my|our) behalf)[\s,.!?]*$|"
    r"[\s,]+(?:for (?:me|us)|on (?:my|our) behalf)[\s.!?]*$",
    re.IGNORECASE,
)
# "문자 좀 보내 주세요. 오늘 회의 30분 미뤄졌다고요": the request comes first, the message after;
# a clipped request ("메일 좀.") ends the same way.
_KO_ASKED = (
    r"(?:(?:보내|전해|전달해|알려|남겨|올려|넣어|돌려|예약해|해|써|만들어|작성해|띄워)\s*"
    r"(?:줘요?|주세요|줄래요?|주실래요|주십시오|주시겠어요|주시겠습니까|드리세요|"
    # "알려드려 주세요", "알려드려 주실 수 있을까요?"
    r"드려(?:요|줘|\s*주세요|\s*줘요?|\s*주실래요|\s*주시겠어요|\s*주실\s*수\s*(?:있을까요|있나요))?"
    # "보내주실 수 있을까요?"
    r"|(?:주실|줄)\s*수\s*(?:있을까요|있나요|있어요|있을까|있어|있으세요))"
    r"|(?:문자|메시지|메세지|메일|이메일|공지)\s*(?:좀|(?:하나|한\s*통)\s*부탁(?:해요|합니다|드려요|드립니다)?)"
    # the written order of a memo: "…게시되도록 예약할 것."
    r"|(?:예약|게시|발송|전송|공지|전달)할\s*것(?=\s*[.!]))"
)
_TIMED_REQUEST_START = re.compile(
    r"\s*(?:(?:today|tonight|tomorrow)\s+)?(?:at\s+)?\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?"
    + _REQUEST_START.pattern,
    re.IGNORECASE,
)
_KO_REQUEST_FIRST = re.compile(rf"^(?P<req>[^.!?~,]*?{_KO_ASKED}\s*[.!?~,]+)\s*(?P<rest>\S.*)$")
# …or with no stop at all, when what follows is reported speech: "… 두 분께만 문자 좀 보내줘 앞
# 도로 공사 때문에 셔틀버스가 후문에서 출발한다고".
_KO_REQUEST_THEN_TOLD = re.compile(
    rf"^(?P<req>[^.!?~,]*?{_KO_ASKED})\s+"
    r"(?!(?:보내|전해|알려|써|올려|남겨|넣어|돌려)\S*(?:\s|$))"
    r"(?P<rest>[^.!?~\n]*[가-힣][^.!?~\n]*(?:다고|라고|자고|냐고)(?:요)?\s*[.!~]*"
    # "…등원하지 말아 달라는 내용으로": the fact, said as the label of the text
    r"|[^.!?~\n]*[가-힣][^.!?~\n]*(?:다|라)는\s*(?:내용|거|것|얘기)(?:으로|로)(?:요)?\s*[.!~]*)$"
)
# A Korean request, then the message in English with no stop between them.
_KO_REQUEST_THEN_ENGLISH = re.compile(
    rf"^(?P<req>[^.!?~,]*?[가-힣][^.!?~,]*?{_KO_ASKED}\s*[.!?~,]*)\s+(?P<rest>[A-Za-z][^가-힣]*)$"
)
# A sentence of need that names the channel, then the English text: "Ms Wilson은 한글 잘 못
# 읽으셔서 영어로 문자 드려야 돼요. The academy will be closed tomorrow".
_KO_NEED_THEN_ENGLISH = re.compile(
    r"^(?P<req>[^.!?~\n]*[가-힣][^.!?~\n]*?(?:문자|메일|텔레|공지|sms|e-?mail|telegram)"
    r"[^.!?~\n]*?[.!?~]+)\s+(?P<rest>[A-Za-z\"'][^가-힣]{8,})$",
    re.IGNORECASE,
)
# What to say, reported first, then who and how: "교재비 … 입금 부탁드린다고, 민지랑 서준이
# 어머님 두 분께 문자 돌려줘".
_TOLD_THEN_ADDRESSED_KO = re.compile(
    r"^(?P<told>[^,\n]{6,}?(?:다고|라고|자고|냐고))\s*,\s*"
    r"(?P<req>[^,\n]{0,40}?(?:께|한테|에게)\s+(?:\S+\s+){0,2}?\S*"
    r"(?:보내|돌려|전해|알려|남겨)\S*)\s*[.!~]*$"
)
_TOLD_LAST_KO = re.compile(
    r"(?<=[.!?~…])\s+(?P<told>[^.!?~…\n]{4,}?(?:다고|라고|자고|냐고))\s+"
    r"(?P<req>\S*(?:문자|메일|텔레그램|텔레|메시지)(?:로|으로)\s+(?:좀\s+)?(?:알려|전해|전달해|보내)"
    r"[^.!?~\n]{0,30}?)\s*[.!?~]*$"
)
_KO_TITLE_THEN_TOLD = re.compile(
    # (a title never runs on over "내용은": "제목은 셔틀노선변경 내용은 …하고 …한다고")
    r"[\s,.?]*제목(?:은|는)\s*(?P<heading>(?:(?!\s(?:내용|본문))[^,.?!]){2,30}?)"
    # "…제목은 체험학습 안내로 해주시공 담달에 과학관 간다구용": "…로 해 주시고" too
    r"(?:이고|고|(?:으로|로)\s*(?:하고|하시고|해\s?주시고|해\s?주시공|해\s?주고|해\s?줘요?|"
    r"해\s?주세요|부탁해요|부탁드려요))\s*,?\s*"
    # "…써 주세요"; or the request came before and the told part ends the message ("…이메일 좀
    # 보내주세요 제목은 셔틀 정류장 변경이고 다음주부터 정류장이 바뀌었다고요")
    r"(?P<told>[^,.?!]{4,}?(?:라고|다고|자고|라구|다구|자구))\s*(?:(?:써|적어|넣어)\S*|요|용)?"
    r"\s*[.!~]*$"
)
_ADDRESS_FIRST_KO = re.compile(
    r"^(?P<to>\S+@\S+\.\w+)\s*(?:이|그|요)?\s*(?:주소|메일|이메일)?\s*"
    r"(?:로|으로)\s+(?P<rest>\S.*[가-힣].*)$",
    re.DOTALL,
)
# A request clipped to its noun: "안내좀ㅠ", "공지요~", "연락 좀!", then what it says.
_KO_CLIPPED_REQUEST = re.compile(
    r"^(?P<req>[^.!?\n]{0,60}?(?:안내|공지|연락)\s*(?:좀|요|염|용)"
    r"(?:\s*부탁(?:해요|드려요|합니다|드립니다|해))?[ㅠㅜ]*[~!.ㅠㅜ]*)\s+"
    # …and no verb after it: "공지 좀 올려 주세요" is a whole request
    r"(?!(?:올려|올리|해|하|보내|부탁|띄워|게시|전해|알려|남겨|넣어|주|드려|걸어))(?P<rest>\S.+)$",
    re.DOTALL,
)
_KO_TITLE_LEFT_TO_YOU = re.compile(
    r"[.,\s]*제목(?:은|는)?\s*(?:걍|그냥|대충)?\s*(?:알아서|아무거나|적당히)\S*(?:\s*[ㅇㅋㅎ]+)?\s*[.!~]*$"
)
# An English text said inside a Korean request: "Oliver Brown 씨 email로 this month's invoice
# is ready at the front desk 라고 보내줘, 제목은 Invoice".
_ENGLISH_SAID_KO = re.compile(
    r"^(?P<head>.*?[가-힣]\S*)\s+(?P<text>[A-Za-z][^가-힣]{5,}?)\s*(?:이?라고)\s+"
    r"(?P<verb>(?:좀\s*)?(?:보내|전해|알려|써)\S*)(?P<tail>.*)$"
)
_HEADING_AFTER_KO = re.compile(
    r"[,.\s]*제목(?:은|는)?\s*[:：]?\s*(?P<heading>[^,.!~]{1,60}?)\s*[.!~]*$"  # noqa: RUF001
)
# The channel nouns of a hurried request, the clipped "텔레"/"텔그" included.
_KO_HURRIED_CHANNELS = (
    r"(?:문자|메시지|메세지|텔레그램|텔레|텔그|이메일|이멜|메일|공지(?:사항)?|알림|리마인더)"
)
_KO_HURRIED_CHANNEL = re.compile(_KO_HURRIED_CHANNELS)
# "텔레로 유나쌤 ㄱㄱ …": a few words naming who and how, "go", then the message.
_KO_GO = re.compile(r"^(?P<req>(?:\S+\s+){1,5}?)(?:ㄱㄱ+|고고)\s+(?P<rest>\S.*)$")
# "오늘 비가 많이 와서요, 올리버 아버님께 문자 하나만 넣어 주세요. 하원 차량이 …": the same, after
# a clause that explains; the message must then be a sentence, not a closing word.
# A quoted text the request sends: "SMS로 'Could you cover my 3pm class today?' 보내줘요"
_QUOTE_SENT_KO = re.compile(
    r"['\"‘“][^'\"’”]{4,}['\"’”]\s*(?:(?:을|를|이라고|라고|로|으로|이렇게|그대로)\s*)*"  # noqa: RUF001
    r"(?:좀\s*)?(?:보내|전해|전달|남겨|써|올려)"
)
_KO_REQUEST_LATER = re.compile(rf"^(?P<req>.*?{_KO_ASKED}\s*[.!?~,]+)\s*(?P<rest>\S.*)$")
# "민지 엄마 … 진상이라고 전체 공지 올려. 다들 알아야 됨": the message was reported before the
# request; what follows it is said to the assistant.
_KO_QUOTE_INSIDE = re.compile(r"(?:라고|다고|자고|냐고)\s")
# The formal orders that end a request: "보내 주십시오", "보내 주시기 바랍니다", "보내 주시지요".
_KO_FORMAL_ORDER = r"주십시오|주시기|주시겠|주시지요|주시죠|주시오"
_KO_CLOSING = re.compile(
    # …or the end of the request's own verb: "메일 보내 | 주시기 바랍니다"
    rf"^(?:감사|고마|부탁|땡큐|ㄱㅅ|ㄳ|수고|{_KO_FORMAL_ORDER}|주세요|바랍니다|줘요?(?=[\s.!~]|$))"
)
# "유나쌤 텔그좀 오늘 회식 7시반", "A반 학부모 전체 문자 ㄱㄱ 교재비 …", "실험실 안전 공지 올려!!
# 슬리퍼 금지": a short head ending in a channel word and a clipped request (좀, ㄱㄱ, a bare verb
# or a full stop), then the message with no closing verb of its own. The request word is needed:
# "문자 받으셨는지 …" is a message.
_KO_CHANNEL_ASKED = re.compile(
    rf"^(?P<req>(?:\S+\s+){{0,6}}?\S*?{_KO_HURRIED_CHANNELS}"
    r"(?:를|을|로|으로)?\s*(?:하나|한\s*통|한\s*개)?\s*"
    # "문자 보내야 하는데요": a need, said before the request, is not the request
    # "문자 좀 보내줘 앞 도로 공사 때문에 …": "좀" and its verb are both the request
    # "리마인더 좀 잡아 줘요": a reminder is set ("잡아", "걸어"), not sent
    r"(?:좀(?:\s*(?:보내|올려|써|넣어|남겨|돌려|전해|띄워|부탁|예약|알려|잡아|걸어|설정|날려|"
    r"드려(?=\s?주))(?!야)\S*)?|"
    r"ㄱㄱ|ㄱ|고고|"
    # "텔레그램 리마인드ㄱ 교재주문 마감이라고": the reminder asked in its loanword
    r"리마인드\s*(?:ㄱㄱ|ㄱ|좀|해\S*)|"
    r"(?:보내|올려|써|넣어|남겨|돌려|전해|띄워|부탁|예약|잡아|걸어|설정)(?!야)\S*|(?=[.!]))"
    # "문자좀ㅇㅇ …": a "yes, yes" typed onto the request; "문자좀ㅠ": a pleading face
    r"(?:ㅇㅇ|ㅇㅋ|ㄱㄱ|[ㅠㅜ]+)?"
    r"(?:\s+(?:줘요|줘|주세요|줄래|해줘|해요|해주세요|해\s?놔|해\s?둬|해\s?줘요))?\s*[.!?~,:：]*)"  # noqa: RUF001
    r"\s+(?:[ㄱ-ㅣ]\s+)?(?P<rest>\S.*)$"  # a stray jamo typed on the way ("예약 해놔 ㅓ 오늘 …")
)
# "내용은 '환불 처리가 완료되었습니다'입니다", "내용은 이번 주 안에 …": a labelled body.
_KO_CONTENT_LABEL = re.compile(
    r"^(?:내용|본문)(?:은|는|엔|에는|:|：)?\s*[:：]?\s*(?:[\"'“‘](?P<q>[^\"'“”‘’]{2,})[\"'”’]"  # noqa: RUF001
    r"\s*(?:입니다|이에요|예요|이요|요)?\s*[.!]*$)?"
)
# The same label after the request, in the same sentence.
_KO_CONTENT_INSIDE = re.compile(
    r"(?:^|[\s,.])(?:내용|본문|body|text)(?:은|는|엔|에는|\s*[:：])\s*[:：]?\s*(?=\S)",  # noqa: RUF001
    re.IGNORECASE,
)
# The words first, then the request pointing back at them: "…closed tomorrow, please text that
# to Emma Wilson".
_SENT_BACK_EN = re.compile(
    r"^(?P<said>[^?.!]{8,}?)\s*(?:[,;]|\s[-–—])\s+"  # noqa: RUF001
    r"(?P<req>(?:(?:please|pls|can\s+you|could\s+you|and|so)\s+)*"
    r"(?:text|sms|send|e-?mail|telegram|message|forward)\s+(?:that|this|it)\b"
    r"(?:\s+(?:on|over|along|across))?\s+to\s+\S.*)$",
    re.IGNORECASE,
)
# "I need the class B parents to know the pool is closed this week, can you text them?"
_TO_KNOW_EN = re.compile(
    r"\b(?:i|we)\s+(?:need|want|would\s+like|['’]d\s+like)\s+\S.{0,40}?\s+to\s+know\s+"  # noqa: RUF001
    r"(?:that\s+)?(?P<said>[^,?;]{6,}?)\s*(?=[,;.]\s+\S|\?|$)",
    re.IGNORECASE,
)
_LABELLED_QUOTE_THEN_ASKED = re.compile(
    r"(?:^|[\s,.])(?:내용|본문|문구|body|text|message)(?:은|는|엔|에는|을|를)?\s*[:：]?\s*"  # noqa: RUF001
    r"['\"‘“「『](?P<quote>[^'\"’”」』]{2,400})['\"’”」』]\s*"  # noqa: RUF001
    r"(?:(?:이?라고|(?:이렇게|이대로|그대로|요렇게|로|으로)?\s*(?:써|적어|작성|넣어|보내|해|부탁)\S*"
    r"(?:\s?(?:주\S*|줘\S*))?)\s*[.!~]*)?$",
    re.IGNORECASE,
)
_HEADING_BEFORE = re.compile(
    r"(?<!\S)(?:제목|subject|title)(?:은|는)?\s*[:：]?\s*(?P<heading>[^/,\n]{2,80}?)\s*[/,.]*$",  # noqa: RUF001
    re.IGNORECASE,
)
# "…5시라고 써 주세요" after the request: the reported message, then the verb that asks for it.
_KO_SAY_IT = re.compile(
    r"(?<=고)\s*(?:좀\s*)?(?:써서|적어서|써|전해|보내|넣어|남겨|적어|해)\s*(?:줘|주세요|주십시오|줄래요?|요)?"
    r"\s*[.!~]*$"
)
# "Subject should be \"Absence on Monday\".", "제목 '11월 강사 회의',": a labelled, quoted heading.
_LABELLED_HEADING = re.compile(
    r"(?:(?:\bwith\s+(?:the|a)\s+)?\b(?:subject(?:\s+line)?|title)(?:은|는|을|를)?"
    r"(?:\s+(?:should\s+be|is|will\s+be|as))?"
    r"|\b(?:titled|called|headed)|제목(?:은|는|을|만)?)"
    # an apostrophe inside a word is no closing quote: 'Tomorrow's schedule'; nor is a plural's
    # before the next capitalised word: 'Parents' Evening'
    r"\s*[:：]?\s*[\"'“‘「『](?P<heading>(?:[^\"'“”‘’「」『』]|(?<=[A-Za-z])['’](?=[A-Za-z])|"  # noqa: RUF001
    r"(?<=s)['’](?=\s[A-Z]\w*['’])){2,80})"  # noqa: RUF001
    r"[\"'”’」』]"  # noqa: RUF001
    # "제목은 '…'로 해 주시고", "제목 '…'이고": the words that attach it to the sentence.
    # "제목은 '독감 예방 안내'로, 손 씻기랑 …": the bare particle too
    r"(?:(?:으로|로)\s*(?:해\s*(?:주시고(?:요)?|주세요|주십시오|줘|서)|하고|요)?|이고|요|"
    r"(?:이|가)?\s*좋겠고)?\s*[,.;]?",
    re.IGNORECASE,
)
# "'상담 주간'이라는 제목으로 메일 보내 주세요", "\"개원 기념행사 안내\"라는 제목의 공지를": the
# quoted words first, then the label that makes them the heading ("'학부모 간담회' 제목으로 공지
# 올려 주세요": the "라는" may go unsaid).
_QUOTED_THEN_LABELLED_KO = re.compile(
    r"[\"'“‘「『](?P<heading>[^\"'“”‘’「」『』]{2,80})[\"'”’」』]\s*"  # noqa: RUF001
    # unsaid, only as the way it is used ("제목은 …" after a quote labels what follows)
    r"(?:(?:이)?라는\s*제목(?:의|으로|을|은|로)?|제목(?:의|으로|로)(?!\S))"
)
# A statement of its own after a comma (a verb in its first words), not more of the request.
_STATEMENT_START = (
    r"(?!(?:and|but|then|also|please|pls|thanks?|thank|asking|saying|telling|so|if|when)\b)"
    r"(?:\S+\s+){0,4}?(?:is|are|was|were|will|has|have|had|must|needs?|should|can|"
    r"starts?|begins?|ends?|opens?|closes?|moved|changed)\b\s+\S"
)
# An unquoted subject ended by a dash, the text after it: "subject Scholarship confirmation - his
# daughter's scholarship is confirmed".
_DASHED_HEADING = re.compile(
    r"[,;]?(?:\s+(?:with|w/)(?:\s+(?:the|a))?)?\s*"
    r"\b(?:subject|title|titled|headed)(?: line)?\s*:?\s+"
    r"(?P<heading>(?:[^-–—:.,;\n\"'‘“]|(?<=\w)-(?=\w)){2,60}?)"  # noqa: RUF001
    r"(?:\s+(?:-{1,2}|[–—])\s+(?=\S)|"  # noqa: RUF001
    # "subject parent-teacher conference, his slot is 4:15 tmrw": a comma, then a statement
    rf"\s*[,;]\s+(?={_STATEMENT_START}))",
    re.IGNORECASE,
)
_DASH_OPENS = re.compile(r"(?:-{1,2}|[–—])\s+(?=\S)")  # noqa: RUF001
_TOPIC_LAST = re.compile(
    r"\s\b(?:re|about|regarding|concerning)\s+(?:the\s+)?(?P<t>[^?.!,;]{2,60}?)\s*[?.!]*$",
    re.IGNORECASE,
)
# "email the class B parents about the museum trip - we need the slips back by Thursday": what
# it is about, a dash, then what to say. The topic heads the text (and is an e-mail's subject).
_ABOUT_THEN_DASHED = re.compile(
    r"^(?P<req>.*?\babout\s+(?:the|a|an|our|this|next|tomorrow'?s|today'?s)\s+"
    r"(?P<topic>[^-–—:.,\n]{2,50}?))(?:\s+(?:-{1,2}|[–—])\s+(?P<rest>\S+(?:\s+\S+){2,}.*)|"  # noqa: RUF001
    # "…about the invoice for this month, the payment is due in two weeks": a comma, then a
    # statement of its own (a verb in its first words), not more of the request
    rf",\s+(?P<said>(?={_STATEMENT_START}).+))$",
    re.IGNORECASE | re.DOTALL,
)
_ASKS_TO_SEND = re.compile(
    r"^(?:(?:could|can|would|will)\s+you\s+(?:please\s+)?|please\s+)"
    r"(?:e-?mail|text|sms|send|message|telegram|tell|let|post|announce|remind|notify)\b",
    re.IGNORECASE,
)
_SEND_WORD = re.compile(
    r"\b(?:e-?mail|text|sms|send|message|telegram|tell|post|announce|remind|notify|"
    r"announcement|reminder)\b|문자|메일|공지|텔레",
    re.IGNORECASE,
)
_ASKED_AS_A_QUESTION = re.compile(r"\b(?:could|can|would|will)\s+you\b", re.IGNORECASE)
_SAID_TO_US = re.compile(
    r"^(?:thanks?|thank you|thx|ty|cheers|sorry|much appreciated|appreciate|no rush|"
    r"(?:he|she|they) (?:asked|wants|wanted|said)|i know|"
    # "…? She rang me about it yesterday and I promised to let her know."
    r"(?:he|she|they) (?:rang|called|phoned|emailed|texted|mentioned|told|was asking|"
    r"has been asking|came by)|i (?:promised|told (?:him|her|them)|said I would))\b",
    re.IGNORECASE,
)
_A_QUESTION_OF_ITS_OWN = re.compile(
    r"^(?:what|when|where|who|which|why|how|whether|if|is|are|can|could|do|does|did|will|would|should|"
    r"shall|has|have)\b",
    re.IGNORECASE,
)
_BODY_IN_HEADING = re.compile(r"\s(?:내용|본문)(?:은|는)?\s*[:：]?\s+(?P<body>\S.*)$")  # noqa: RUF001
# "공지 제목: 주차 안내⏎내용: …", "Subject: Trip⏎…": a heading labelled on a line of its own.
_LINE_HEADING = re.compile(
    r"(?<!\S)(?:제목|subject|title)\s*[:：]\s*(?P<heading>[^\n]{2,80}?)\s*\n",  # noqa: RUF001
    re.IGNORECASE,
)
_CHANNEL_NAME = r"(?:e-?mail|sms|text(?: message)?|telegram)"
_CHANNEL_AT_START = re.compile(rf"^(?:by|via|over|on)\s+{_CHANNEL_NAME}\b\s*[-–—:,]?\s*", re.I)  # noqa: RUF001
_CHANNEL_AT_END = re.compile(
    rf",\s*(?:by|via|over|on)\s+{_CHANNEL_NAME}(?:,?\s*(?:please|pls|thanks))?\s*[.!]*$", re.I
)
# "set things up so that …" is the request's purpose, not what to say; "is it possible that
# you email …", "would it be ok that …" ask whether, and the request follows.
_THAT = re.compile(
    r"(?<!\bso)(?<!\bpossible)(?<!\bok)(?<!\bokay)(?<!\balright)(?<!\bfine)\s+that\s+"
    # "…, please text that to Emma Wilson": "that" is the thing sent, not the start of its words
    r"(?!(?:on\s+|over\s+|along\s+|across\s+)?to\s+\S+(?:\s+\S+){0,3}\s*[.!?]*$)",
    re.IGNORECASE,
)
_REMIND_TO = re.compile(
    r"\bremind\b.*?\s(?:to|that|about)\s+(?!me\b|him\b|her\b|them\b|us\b)"
    # "at quarter to nine", "ten to five": a clock, not what to be reminded of
    r"(?<!quarter to )(?<!ten to )(?<!five to )(?<!twenty to )(?<!half to )",
    re.IGNORECASE,
)
_SUBJECT = re.compile(
    r"\b(?:subject(?: line)?|titled|title)\s*:?\s*(?P<s>.+?)\s*$"
    # "about …" of the request, not of someone's asking ("Oliver asked about his refund, …")
    r"|(?<!asked )(?<!asking )(?<!wondering )(?<!wondered )(?<!enquired )(?<!inquired )"
    # "…receive an email about the book fair? It should say": the subject ends its sentence
    r"\b(?:about|regarding)\s+(?P<about2>[^,;?.!]+?)\s*[?.!]+\s+"
    r"(?:it|this|that|the (?:e-?mail|message))\s+(?:should|must|can|could|will|needs? to)\s+"
    r"(?:say|read|mention|tell)\w*(?:\s+that)?\s*:?\s*$"
    r"|(?<!asked )(?<!asking )(?<!wondering )(?<!wondered )(?<!enquired )(?<!inquired )"
    r"\b(?:about|re:?|regarding)\s+(?P<about>[^,;]+?)\s*[?.!]*$",
    re.IGNORECASE,
)
# The closing verb phrase of a Korean request: an optional channel noun, then the verb.
_KO_CHANNEL = (
    r"(?:문자|메시지|메세지|카톡|텔레그램|텔그램|텔레(?!비)|텔그|이메일|이멜|메일"
    r"|(?:전체\s*)?공지(?:사항)?|알림|리마인더|리마인드)"
)
# "… 올라가게 예약해 둬": so that it goes out; the request's, not the message's.
# "… 메일이 나가도록 설정해": the channel may come with it.
_KO_SO_THAT = (
    rf"(?:(?:{_KO_CHANNEL}\s*(?:이|가)\s*)?"
    r"(?:자동으로\s*)?(?:올라가|나가|가|발송되|게시되|전달되|보내지|뜨)(?:게|도록)\s*)?"
)
# "문자 하나", "메일 한 통": how many, not what to say.
_KO_COUNTER = r"(?:하나|한\s*(?:통|개|건|줄|편))(?:만|씩)?"
# The verb may be followed by "…도록 해줘"; a channel noun may itself be the verb ("문자해줘",
# "공지해줘", "알림 설정해줘") or end a clipped request ("… 문자 좀").
_KO_TAIL = re.compile(
    rf"\s*(?:(?:{_KO_CHANNEL}\s*(?:를|을|로|으로)?\s*)*(?:{_KO_COUNTER}\s*)?{_KO_SO_THAT}(?:예약\s*)?"
    r"(?:(?:좀|살짝|꼭|다시|한번|간단히|짧게)\s*)?"
    r"(?:보내|전해|전달해|전달|알려|남겨|써|올려|띄워|넣어|게시해|게시하|등록해|리마인드\s*해|예약해|돌려"
    # "…발송해 주시기 바랍니다", "날려주세요", "메일 좀 드려 주세요"
    r"|발송\s?해|날려|(?<=좀\s)드려(?=\s?주)"
    r"|부탁(?!\S*(?:다고|라고|다는))"  # "회신 부탁드린다고 해주세요": the message asks, not us
    r"|물어봐|여쭤봐|여쭤|보낼|올릴|전할|안내\s*(?:좀\s*)?해"
    r"|전해\s*드려도\s*될까요|보내\s*드려도\s*될까요"  # "…올려두었다고 전해드려도 될까요?"
    r"|설정해|걸어|(?:올리|알리|전하)(?=십시오|세요|시오|시겠)"
    r"|(?:(?<=고)|(?<=고\s)|(?<=고\s좀\s)|(?<=고\s좀))해"  # "…받았다고 (좀) 해줘": say that
    r"|(?:(?<=게)|(?<=게\s))해)"  # "…자동으로 가게 해줘": make it go
    r"\S*(?:\s+해\S*|(?<=기)\s+바랍니다)?"  # "…게시하기 바랍니다"
    r"(?:\s+드려(?=\s+(?:주|줘)))?"  # "…알려 드려 주세요": the honour paid to the one told
    rf"|{_KO_CHANNEL}\s*(?:좀\s*)?(?:해\S*|부탁\S*)?)"
    rf"(?:\s+(?:줘|주세요|줄래|줄래요|주실래요|{_KO_FORMAL_ORDER}|둬|두세요|"
    r"둬요|놔|놔줘|놔요)\S*(?:\s+바랍니다)?"
    r"|\s+주시면\s+(?:감사|좋)\S*(?:\s+\S+)?"  # "전해 주시면 감사하겠습니다"
    r"|\s+하는데[.…]*\s+(?:좀\s+)?부탁\S*(?:\s+\S+)?"  # "알려드려야 하는데… 부탁드려도 될까요"
    r"|(?<=면)\s+(?:어떨까|어떨지|좋겠|감사)\S*(?:\s+\S+)?"  # "올려주시면 어떨까 싶어요"
    r"|\s+수\s*있\S*"  # "보내줄 수 있어요?"
    r"|\s+(?:주실|줄)\s*수\s*있\S*)?"  # "넣어 주실 수 있을까요"
    r"\s*[.!?~]*\s*$"
)
# "텔레그램으로 …" at the start of the message part names the channel, not the message.
_KO_CHANNEL_LEAD = re.compile(
    rf"^(?:(?:{_KO_CHANNEL}|그쪽|그걸|그것|거기)\s*(?:으로|로)"
    # "공지사항에 실험실 들어갈 땐 …": where it goes up, not what it says
    r"|(?:공지(?:사항)?|게시판)\s*(?:에다가|에다|에))\s+"
)
# "김민지 어머님이랑 이서준 어머님 두 분한테만 문자로요, …": who and how, said first and cut off
# by a comma; the message follows.
_KO_WHO_AND_CHANNEL_FIRST = re.compile(
    rf"^[^,.?!]{{0,60}}?{_KO_CHANNEL}\s*(?:으로|로)(?:만)?(?:요)?\s*[,.]\s+"
)
_KO_CHANNEL_VIA = re.compile(rf"\s(?:단체|전체)?{_KO_CHANNEL}\s*(?:으로|로)\s+")
_KO_QUOTE_ENDING = r"(?:이라고|라고|다고|자고|냐고|하고)(?:요)?"
# (laughter typed after it is the writer's: "…보내달라고요ㅋㅋ")
_KO_QUOTE_END = re.compile(rf"{_KO_QUOTE_ENDING}[ㅋㅎㅠㅜ]*\s*[.!~]*\s*$")
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
_KO_ASKED_WHETHER = re.compile(r"(?:는지|인지)(?=\s*$)")
# "…수업한다는 내용으로요", "…진행된다는 것입니다": the fact, said as the label of the text
_KO_THE_FACT = re.compile(
    r"(다|라|자|냐)는\s*(?:거|것|내용|얘기|말)(?:으로요|으로|입니다|이에요|예요|이요|요)?\s*[.!~]*\s*$|"
    # "…추후 안내한다는 정도로요": the gist of the text, said as how much of it to say
    r"(다|라|자|냐)는\s*(?:정도|식)(?:로요|로|으로요|으로)?\s*[.!~]*\s*$|"
    # "…거행된다는 내용을 담도록 조치 바람": what the text is to say, asked for
    r"(다|라|자|냐)는\s*(?:내용|사실|점)(?:을|이)?\s*(?:반드시\s*|꼭\s*)?(?:담|포함|넣|적|써|알리)\S*"
    r"(?:\s+\S+){0,3}?\s*[.!~]*\s*$|"
    # "…폴더에 올려 달라는 알림 좀 걸어 둬 주세요. 저는 분명히 까먹을 거라서요.": the text is
    # what the message asks of them; the asking, and the writer's reason after it, are not
    r"(다|라|자|냐)는\s*(?:알림|문자|메시지|메세지|메일|이메일|공지|텔레그램|리마인더)\S*\s+"
    r"(?:\S+\s+){0,4}?\S*(?:주세요|주십시오|줘요|줘|주실래요|주시겠어요|부탁\S*)\s*[.!~]*"
    r"(?:\s+[^.!?]*(?:서|니까)요?\s*[.!~]*)?\s*$"
)
_KO_CLOCK = re.compile(r"\d\s*시|[한두세네]\s*시|(?:오전|오후|아침|저녁|밤)")
_KO_ME = re.compile(r"(?:나|저|내|제)(?:에게|한테|게)")
_KO_QUOTE_MID = re.compile(rf"{_KO_QUOTE_ENDING}(?=\s|$)")
_KO_LEADING_TIME = re.compile(
    r"^(?:(?:오늘|내일|낼|모레|다음\s*주|이번\s*주|[월화수목금토일]요일|\d+\s*월\s*\d+\s*일|오전|오후|아침|"
    r"저녁|밤|\d{1,2}\s*시(?:\s*\d{1,2}\s*분|\s*반)?|\d+\s*(?:분|시간|일)\s*(?:후|뒤))(?:에)?\s*)+"
)
_KO_AUDIENCE = re.compile(r"^\S.{0,40}?\s(?:대상으로|앞으로)(?=\s)")
# "<topic> 공지를 <who>에게 …": the text named first, the channel as the object, then who.
_KO_TOPIC_FIRST = re.compile(
    rf"^(?P<topic>[^,.!?]+?)\s*(?P<channel>{_KO_CHANNEL})\s*(?:를|을)?\s+(?P<rest>\S.*)$"
)
# Groups take plain "에" ("교사 그룹에", "선생님들 전체에", "A반에"); other words ending in "에"
# are mostly times and places ("11시에", "주말에"), so only group-like words count.
_KO_RECIPIENT = re.compile(
    r"\S+?(?:에게|한테|께)(?:는|도)?(?=\s|$)"
    # "A반에" is a class; a bare "반에" is half past the hour ("8시 반에"), and so is "6시반에"
    r"|(?:\S+(?:그룹|전체|팀|님들|들)|\S+(?<!시)반|그룹|전체|팀|님들)에(?:는|도)?(?=\s|$)"
    # an announcement's place: "A반 학부모 게시판에"
    r"|\S*(?:게시판|공지방|알림판|단톡방)에(?:다가?)?(?=\s|$)"
    # who, called by their title before a comma: "서준이 어머님, 상담 일정 … 옮겨졌다고 메일 좀"
    r"|\S*(?:어머님|아버님|학부모님|선생님|쌤)(?:들)?,(?=\s)"
)


@dataclass(frozen=True)
class Split:
    """A request cut into its head (recipients, time, verb) and the body to deliver;
    ``heading`` is a subject or title the request labels and quotes ("제목 '교재 추가 주문'")."""

    head: str
    body: str | None
    heading: str | None = None


# A laugh or a nod typed after the request ("…해줘 ㅎ", "…ㅇㅋ?", "^^"): said to the assistant.
_TRAILING_NOISE = re.compile(r"(?:\s+(?:[ㄱ-ㅎㅏ-ㅣ]{1,4}|\^\^|;;)[?!.~]*)+\s*$")
# The same laugh after the request's verb with more to come ("…공지해줘 ㅎㅎ 장소는 …") ends the
# request's sentence, as a full stop would.
_LAUGH_AFTER_REQUEST = re.compile(
    r"(?<=[줘요해래])(?:\s+(?:[ㄱ-ㅎㅏ-ㅣ]{1,4}|\^\^|;;)[!.~]*)+\s+(?=\S)"
)
# "…가게 해줘, 영어로 써서": the language to write in, said last, is how, not what.
_IN_A_LANGUAGE_LAST = re.compile(
    r"(?<=[가-힣~!.])[,\s]+(?:영어|영문|한국어|한글)로\s*(?:써서|써\s*줘요?|작성해서|작성해\s*줘요?)"
    r"\s*[.!~]*$"
)
# "Parent meeting moved to next week — 이렇게 보내줄래": the text, then "send it like this";
# after a quoted text, or an arrow back at it: "'…잘 썼어요' 이렇게 보내줘", "'…' ← 이거 좀
# 다듬어서 올려줘요".
_ASKED_LIKE_THIS = re.compile(
    r"\s*(?:[—–-]+|(?<=['\"’”])|←|<-+)\s*(?:이렇게|이대로|요렇게|그대로|이거|이걸)\s*(?:좀\s*)?"  # noqa: RUF001
    r"(?:\S+\s+){0,2}?\S*(?:보내|전해|올려|써)\S*\s*[?!.~]*$"
)


# "Mr Brown's son left his water bottle in my classroom… would it be alright to let him know
# over Telegram?": the news told first, then a request to pass it on that says nothing itself;
# the understanding reads the news as the text.
PASS_IT_ON = re.compile(
    r"\b(?:let (?:him|her|them) know|tell (?:him|her|them)|pass (?:this|it|that) on|"
    r"convey (?:this|it|that)|pass (?:this|it|that) along)\b(?:\s+to\s+[^,.?!]{1,30}?)?"
    r"(?:\s+(?:by|via|over|on)\s+\S+)?"
    # "…, together with my congratulations."
    r"(?:,?\s*(?:together|along) with [^.?!]{1,40})?[\s?.!]*$",
    re.IGNORECASE,
)


_CLAUSE_BREAK = re.compile(r"\s[—–-]+\s*|[.;:!?]\s+")  # noqa: RUF001


def _request_later(body: str) -> int | None:
    """Where a request to send starts after a break inside ``body``, if one does."""
    return next(
        (b.end() for b in _CLAUSE_BREAK.finditer(body) if _ASKS_TO_SEND.match(body[b.end() :])),
        None,
    )


def _passes_it_on(body: str) -> bool:
    sentences = [s for s in SENTENCE_END.split(body.strip()) if s.strip()]
    return len(sentences) > 1 and bool(PASS_IT_ON.search(sentences[-1]))


# "…부탁드린다고 메일을 한 통 보내 주십시오": the count of a channel says nothing of the message.
_COUNTED_CHANNEL_KO = re.compile(
    r"(?P<channel>(?:문자|메시지|메세지|메일|이메일|텔레그램|텔레|공지)(?:를|을)?)\s+"
    r"(?:한|두|세)\s?(?:통|건|개|줄)(?:만)?\s+(?=\S)"
)


_BARE_REQUEST_OPENS_BODY = re.compile(
    r"^(?P<req>(?:(?:pls|please|plz|can\s+you|could\s+you)\s+)?(?:text|sms|txt|e-?mail|telegram|"
    r"message|msg|tell|ping|remind)\s+(?:her|him|them|it)(?:\s+(?:pls|please|plz|asap|now|quickly))?)"
    r"\s*(?:[-–—:,]+|\s[-–—])\s*(?P<body>\S.{3,})$",  # noqa: RUF001
    re.IGNORECASE | re.DOTALL,
)


def without_a_bare_request(body: str) -> str:
    """``body`` without the bare request that opens it ("text her pls - …", "tell her …", a
    "pls," said to us), if one does."""
    bare = _BARE_REQUEST_OPENS_BODY.match(body) or _RELAY_OPENS_BODY.match(body)
    return tidy(bare["body"]) if bare else body


# "…subject Progress report - tell her lily's reading has improved": the relay is the request's;
# "tg ms choi pls, the lab keys r at the front desk": so is the "pls," ("thanks, …" opening the
# words is said to them)
_RELAY_OPENS_BODY = re.compile(
    r"^(?:(?:tell|let)\s+(?:her|him|them)\s+(?:know\s+)?(?:that\s+)?|"
    r"(?:pls|please|plz)\s*[,:;]+\s*)(?P<body>\S.{3,})$",
    re.IGNORECASE | re.DOTALL,
)


def split_message(text: str) -> Split:
    """Cut ``text`` into head and body; ``body`` is None when the request names no text."""
    text = _LAUGH_AFTER_REQUEST.sub(". ", _TRAILING_NOISE.sub("", text.strip()))
    text = _COUNTED_CHANNEL_KO.sub(r"\g<channel> ", text)
    split = _split(_IN_A_LANGUAGE_LAST.sub("", text))
    if split.body and not _SEND_WORD.search(split.head) and _passes_it_on(split.body):
        # "I am delighted to report that Minji … Please convey this to her mother by
        # Telegram.": the "that" was the news's, and the request comes after it
        return Split(text, None, split.heading)
    if split.body and _ASKS_TO_SEND.match(split.body) and not _SEND_WORD.search(split.head):
        # "Sorry, one more thing: could you email Seojun's dad to say …": the colon ended a
        # remark, and the request is what follows it
        inner = _split(split.body)
        split = Split(f"{split.head}: {inner.head}", inner.body, inner.heading or split.heading)
    if split.body and not _SEND_WORD.search(split.head) and (later := _request_later(split.body)):
        # "Yuna lent me her book and I want to say thanks properly — could you send her an email
        # … saying …": the head's "say" was the writer's own, and the request comes after a break
        inner, before = _split(split.body[later:]), split.body[:later].strip(" :")
        if inner.body and split.heading and before == split.heading:
            # "…was asking about the projector in room 3 - can you text her that it's fixed?":
            # the topic heads the words ("Projector in room 3: it's been fixed")
            split = Split(f"{split.head} {inner.head}", f"{before}: {inner.body}", split.heading)
        else:
            head = f"{split.head} {before} {inner.head}"
            split = Split(head, inner.body, inner.heading or split.heading)
    if split.body and _ASKED_AS_A_QUESTION.search(split.head):
        split = Split(split.head, _without_the_requests_mark(split.body), split.heading)
    labelled = _BODY_IN_HEADING.search(split.heading or "") if split.body is None else None
    if split.heading and labelled is not None:
        # "제목 회식 내용 금요일 회식 취소됨": the heading ran on into the labelled text
        body = korean_direct(labelled["body"]) or labelled["body"]
        split = Split(split.head, tidy(body), split.heading[: labelled.start()].strip())
    if split.body and (bare := _BARE_REQUEST_OPENS_BODY.match(split.body)):
        # "Emma Wilson - text her pls - her son's inhaler is in the nurse's office": who, then
        # the bare request between dashes, then the words
        split = Split(f"{split.head} {bare['req']}", tidy(bare["body"]), split.heading)
    elif split.body and (relay := _RELAY_OPENS_BODY.match(split.body)):
        split = Split(split.head, tidy(relay["body"]), split.heading)
    if split.body and (inside := _REQUEST_OPENS_BODY.match(split.body)):
        # "…put something in writing: an email to the Class A parents explaining that …"
        split = Split(f"{split.head}: {inside['req']}", tidy(inside["body"]), split.heading)
    if split.body and (asked := _ASKED_LIKE_THIS.search(split.body)):
        said = split.body[: asked.start()].strip().strip("'\"‘’“”").strip()  # noqa: RUF001
        head = f"{split.head} {asked.group(0).strip(' —–-←<')}"  # noqa: RUF001
        split = Split(head, said, split.heading)
    if split.body and (aside := _CHANNEL_ASIDE_KO.match(split.body)):
        # "김민지 님께 — 텔레그램으로요 — 민지 내일 결석 건 …": how to send it, said in passing
        head = f"{split.head} {aside.group(0).strip(' —–-')}"  # noqa: RUF001
        split = Split(head, split.body[aside.end() :].strip(), split.heading)
    if split.body and (sent := _SENDING_AFTER_QUOTE.match(split.body)):
        # "내용은 '내일 준비물: 실내화'. 오늘 오후 6시에 발송되게 해 주세요.": the quote is
        # the text, the sentence after it says when to send it
        said = sent["quoted"].strip("'\"‘’“”").strip()  # noqa: RUF001
        split = Split(f"{split.head} {sent['sending']}", said, split.heading)
    if split.body is None or re.search(r"[가-힣]", split.body) or _CHANNEL_WORD.search(split.head):
        return split  # a channel the request names already: "by email" in the text is content
    # "…, by SMS please", "by email - staff meeting moved": how to send it, not what to say
    edge = _CHANNEL_AT_START.match(split.body) or _CHANNEL_AT_END.search(split.body)
    if edge is None:
        return split
    body = (split.body[: edge.start()] + split.body[edge.end() :]).strip(" ,-–—:?.!")  # noqa: RUF001
    if not body:  # "…would it be alright to let him know over Telegram?": no text at all
        return Split(text, None, split.heading)
    return Split(f"{split.head} {edge.group(0).strip(' ,-')}", tidy(body), split.heading)


_CHANNEL_ASIDE_KO = re.compile(
    r"^[—–-]+\s*(?:텔레그램|문자|메일|이메일|sms|telegram|e-?mail)\s?(?:으로|로)(?:요)?\s*[—–-]+\s*",  # noqa: RUF001
    re.IGNORECASE,
)
_SENDING_AFTER_QUOTE = re.compile(
    r"^(?P<quoted>['\"‘“][^'\"‘’“”]{2,}['\"’”])\s*[.,]?\s+"  # noqa: RUF001
    r"(?P<sending>[^'\"‘’“”]*(?:발송|보내|나가|예약|전송|send|go out)[^'\"‘’“”]*)$",  # noqa: RUF001
    re.IGNORECASE,
)
_REQUEST_OPENS_BODY = re.compile(
    r"^(?P<req>(?:an?\s+)?(?:e-?mail|text|message|sms|note|letter|telegram)\s+to\s+[^.,:;]{2,60}?)"
    r"\s+(?:explaining|saying|telling (?:them|him|her)|to say|letting (?:them|him|her) know)"
    r"(?:\s+that)?\s+(?P<body>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)


# The text first, then a short request that points back at it: "Class moves online at 4pm -
# text that to Emma pls", "…late sessions - please publish that as an announcement", "…1층으로
# 옮겨야 돼요. 이거 공지로 올려줘요".
_POINTED_BACK_EN = re.compile(
    r"^(?P<body>\S.{10,}?)\s*(?:\s[-–—]+|[.;!])\s+(?P<req>(?:(?:please|pls|can you|could you|"  # noqa: RUF001
    r"just|and)\s+)*(?:text|send|sms|e-?mail|mail|telegram|publish|post|announce|put|share|forward|"
    r"message)\s+(?:that|this|it)\b[^.?!]{0,60}?|"
    # "… - that's the e-mail I want Kim Minji to get"
    r"(?:that|this)(?: ?'?s| is) (?:the|my|what) (?:e-?mail|text|message|sms|telegram|notice|"
    r"announcement)\b[^.?!]{0,60}?)\s*[.?!]*$",
    re.IGNORECASE,
)
# "…알려 주세요.⏎⏎↑ 이거 공지로 올려줘", "…시작되었습니다 — 이거 공지로 내일 오후 5시에 올라가게
# 해줘", "…감사합니다.⏎⏎이거 서준 어머님께 문자로 보내줘".
_POINTED_BACK_KO = re.compile(
    r"^(?P<body>\S.{10,}?(?:[.!~]|(?=\s+[-–—]+\s)))(?:\s+[-–—]+)?\s+(?:[↑^☝]+\s*)?"  # noqa: RUF001
    r"(?P<req>(?:이거|이걸|이것|이 내용|위 내용|그거|요거)\s*(?:를|을|좀|도)?\s*"
    r"(?:\S+\s+){0,5}?\S*(?:올려|올라가|보내|띄워|전해|알려|공지해|돌려)[^.!?]{0,40}?)\s*[.!?~]*$",
    re.DOTALL,
)


# What to say first, in sentences of its own, then the request that names only who and how:
# "…넣어뒀거든요. 최유나 선생님한테 텔레그램으로 좀 알려주실수 있나요".
_REQUEST_LAST_KO = re.compile(
    r"^(?P<body>\S.{10,}[.!~])\s+(?P<req>[^.!?~]{0,30}(?:한테|에게|께)\s*(?:\S+(?:로|으로)\s*)?"
    r"(?:좀\s*)?(?:알려|전해|보내|전달해)\s*(?:주실\s*수|줄\s*수|줘|주세요|주실래요|드려)[^.!?~]{0,15}?)"
    r"\s*[.!?~]*$"
)


def _pointed_back(text: str) -> Split | None:
    match = (
        _POINTED_BACK_EN.match(text) or _POINTED_BACK_KO.match(text) or _REQUEST_LAST_KO.match(text)
    )
    if match is None or len(match["req"].split()) > 10:
        return None
    # "…올려줘요 제목은 냉방기 점검 안내", "mail this to all the teachers, subject: First aid"
    heading = _TITLE_AFTER_KO.search(match["req"]) or _SUBJECT_AFTER_EN.search(match["req"])
    if heading is not None:
        return Split(
            match["req"][: heading.start()].strip(), _with_its_stop(text, match), heading["heading"]
        )
    body = _with_its_stop(text, match)
    inner = _after_content_label(body)  # "제목 '겨울방학 특강', 내용은 … — 이거 공지로 올려줘"
    if inner is not None and inner.heading and inner.body:
        return Split(match["req"].strip(), inner.body, heading=inner.heading.strip("'\"‘’“”"))  # noqa: RUF001
    pair = _LABELLED_PAIR_EN.match(body)  # "Title 'Open day', text: … Post that tomorrow at 8"
    if pair is not None:
        return Split(match["req"].strip(), tidy(pair["body"].strip()), pair["heading"].strip())
    # A pasted notice opens with its heading in brackets: "[학부모 상담 주간 안내]⏎다음 주는 …"
    bracketed = re.match(r"\[(?P<heading>[^\]\n]{2,40})\]\s*\n", body)
    return Split(match["req"].strip(), tidy(body), bracketed["heading"] if bracketed else None)


def _with_its_stop(text: str, match: re.Match[str]) -> str:
    """The text said first, with the full stop that ended it ("… a pen. mail this to …")."""
    body = match["body"].strip()
    stop = text[match.end("body") : match.end("body") + 1]
    return body + stop if stop in {".", "!"} and not body.endswith(stop) else body


_SUBJECT_AFTER_EN = re.compile(
    r"[,;]?\s+(?:with )?(?:the )?(?:subject|title)(?: line)?\s*[:-]?\s*['\"‘“]?"  # noqa: RUF001
    r"(?P<heading>[^.!?'\"’”]{2,60}?)['\"’”]?\s*[.!]*$",  # noqa: RUF001
    re.IGNORECASE,
)
_TITLE_AFTER_KO = re.compile(r"\s+제목(?:은|는)?\s*[:：]?\s*(?P<heading>[^.!?~]{2,40}?)\s*[.!~]*$")  # noqa: RUF001


# "…전해드려도 될까요? 제목은 강의자료 업로드로 해주세요": an unquoted title said last.
_TRAILING_TITLE_KO = re.compile(
    # after a full stop, or right after the request's verb: "…쓰라고 올려줘 제목은 실험실 안전"
    r"(?:(?<=[.?!~])|(?<=줘|요|해))\s+제목(?:은|는)?\s*[:：]?\s*(?P<heading>[^.!?~/,'\"]{2,40}?)\s*"  # noqa: RUF001
    r"(?:(?:으로|로)\s*(?:해\s*(?:주세요|줘요?|주실래요|주시고)|부탁\S*|하면\s*돼요?|할게요)|요)?"
    r"\s*[.!~]*$"
)
# "Announcement for all staff. Title: Welcome. Text: please join me …": both parts labelled.
# "Title 'Photo day', text: …" too: a quoted title needs no colon.
# "subject: Trip. text: …", and the same told in words: "The subject is Winter break schedule,
# and the message is that the academy is closed …", "the title is Book Fair, and it says …".
_LABEL_SAYS = (
    r"(?:\s*:\s*|\s+(?:is|should\s+be|will\s+be|would\s+be|reads|says|should\s+say)\s*:?\s*)"
)
_LABELLED_PAIR_EN = re.compile(
    r"\b(?:title|subject|heading)(?:\s+line)?"
    # "title Science Week - and the body: …": the words after the label are the title when a
    # labelled text follows them
    rf"(?:{_LABEL_SAYS}|\s+(?=['\"‘“])|\s+)['\"‘“]?"  # noqa: RUF001
    r"(?P<heading>[^.\n:'\"’”]{2,60}?)['\"’”]?\s*"  # noqa: RUF001
    r"(?:[.,;\n]\s*(?:and\s+)?|\s+[-—–]+\s+(?:and\s+)?|\s+and\s+)"  # noqa: RUF001
    r"(?:(?:the|its|the\s+e-?mail'?s?)\s+)?"
    # "Body, please, as follows: …": the label, a word to us, then its words
    r"(?:(?:text|body|message|content|details|wording)(?:\s*,?\s*(?:please|pls)\s*,?)?"
    rf"(?:\s+as\s+follows)?(?:{_LABEL_SAYS})|"
    r"it\s+(?:says|should\s+say|will\s+say|reads|should\s+read)\s*:?\s*)"
    r"(?:that\s+)?(?P<body>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)
# "…, text: everyone wears uniform. Have that announcement go up tomorrow at 8:30": the request
# said after the labelled text, pointing back at it.
_REQUEST_AFTER_LABELLED = re.compile(
    r"(?<=[.!?])\s+(?P<req>(?:(?:please|pls|can you|could you|and|then)\s+)*"
    r"(?:have|get|make|let|put|post|send|publish|schedule|text|e-?mail)\b[^.?!]*?"
    r"\b(?:that|this|it)\b[^.?!]{0,60}?)\s*[.?!]*$",
    re.IGNORECASE,
)


# A request written as a form, one labelled line each: "Need an email sent:⏎- to: Oliver⏎-
# subject: November invoice⏎- text: the invoice is in the portal".
_FORM_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?(?P<label>to|recipients?|subject|title|text|body|message|content)\s*:\s*"
    r"(?P<value>\S.*?)\s*$",
    re.IGNORECASE | re.MULTILINE,
)


def _form(text: str) -> Split | None:
    fields = {m["label"].lower().rstrip("s"): m["value"] for m in _FORM_LINE.finditer(text)}
    body = (
        fields.get("text") or fields.get("body") or fields.get("message") or fields.get("content")
    )
    if body is None or "\n" not in text.strip():
        return None
    first = _FORM_LINE.sub("", text).strip().rstrip(":")
    who = fields.get("to") or fields.get("recipient")
    head = f"{first} to {who}" if who else first
    return Split(head, tidy(body), heading=fields.get("subject") or fields.get("title"))


def _split(text: str) -> Split:
    address = _ADDRESS_FIRST_KO.match(text)
    if address is not None:  # "oliver@… 이 주소로 교재비 영수증 … 맡겨뒀다고 메일 좀 써줄래"
        split = _split(address["rest"])
        if split.body:
            return Split(f"{address['to']} {split.head}", split.body, split.heading)
    form = _form(text)
    if form is not None:
        return form
    back = _SENT_BACK_EN.match(text)
    if back is not None:  # "The library is closed tomorrow, please text that to Emma Wilson"
        return Split(back["req"].strip(), tidy(back["said"]))
    known = _TO_KNOW_EN.search(text)
    if known is not None:  # "I need the class B parents to know the pool is closed, can you …"
        head = f"{text[: known.start('said')]} {text[known.end('said') :]}"
        return Split(" ".join(head.split()), tidy(known["said"]))
    quoted = _LABELLED_QUOTE_THEN_ASKED.search(text)
    if quoted is not None and quoted.start() > 0:
        # "…내용은 '민지가 … 늘었습니다. 칭찬 많이 해 주세요.' 이렇게 써 주세요": the quote is the
        # text whole, its own sentences too; the words after it only ask for it
        head = text[: quoted.start()]
        # "제목은 '상담 결과 안내'로 하시고, 내용은 '…'", "title은 Parent-Teacher Night, body는 '…'"
        titled = _LABELLED_HEADING.search(head) or _HEADING_BEFORE.search(head.rstrip())
        heading = titled["heading"].strip() if titled else None
        if titled is not None:
            head = f"{head[: titled.start()]} {head[titled.end() :]}"
        return Split(head.strip(" ,"), quoted["quote"].strip(), heading)
    pointed = _pointed_back(text)
    if pointed is not None:
        return pointed
    titled = _KO_TITLE_THEN_TOLD.search(text)
    if titled is not None and titled.start() > 0:  # "…제목은 X이고 보안경 챙겨오라고 써주세요"
        return Split(
            text[: titled.start()].strip(" ,"),
            korean_direct(titled["told"]),
            titled["heading"].strip(),
        )
    told = _TOLD_THEN_ADDRESSED_KO.match(text)
    if told is not None:  # "…입금 부탁드린다고, 민지랑 서준이 어머님 두 분께 문자 돌려줘"
        return Split(told["req"].strip(), korean_direct(told["told"]))
    last = _TOLD_LAST_KO.search(text)
    if last is not None and last.start("told") > 0:
        # "…최유나 선생님께서 그걸 쓰셔야 한다고 하셔서요. 자료가 제 책상 위에 있다고 문자로 좀
        # 알려드려 주실 수 있을까요?": who was said before; the last sentence tells what
        head = f"{text[: last.start('told')].strip()} {last['req']}"
        return Split(head, korean_direct(last["told"]))
    said = _ENGLISH_SAID_KO.match(text)
    if said is not None:  # "Oliver Brown 씨 email로 this month's invoice is ready 라고 보내줘"
        heading = _HEADING_AFTER_KO.search(said["tail"])
        tail = said["tail"][: heading.start()] if heading else said["tail"]
        head = f"{said['head']} {said['verb']}{tail}".strip(" ,")
        return Split(head, tidy(said["text"]), heading["heading"] if heading else None)
    pair = _LABELLED_PAIR_EN.search(text)
    if pair is not None:
        head, body = text[: pair.start()].strip(" .,:-"), pair["body"].strip()
        asked_after = _REQUEST_AFTER_LABELLED.search(body)
        if asked_after is not None:
            head = f"{head} {asked_after['req']}".strip()
            body = body[: asked_after.start()].strip()
        return Split(head, tidy(body), heading=pair["heading"].strip())
    dashed = _DASHED_HEADING.search(text)
    if dashed is not None:  # "email him pls, subject Scholarship confirmation - his daughter's …"
        return Split(
            text[: dashed.start()].strip(" ,"), tidy(text[dashed.end() :]), dashed["heading"]
        )
    about = _ABOUT_THEN_DASHED.match(text)
    if about is not None and not re.search(r"[가-힣]", text):
        topic = about["topic"].strip()
        topic = topic[:1].upper() + topic[1:]
        return Split(
            about["req"].strip(), f"{topic}: {tidy(about['rest'] or about['said'])}", topic
        )
    labelled = (
        _QUOTED_THEN_LABELLED_KO.search(text)
        or _LABELLED_HEADING.search(text)
        or _LINE_HEADING.search(text)
        or _TRAILING_TITLE_KO.search(text)
    )
    if labelled is not None:  # the quoted subject is not the body: split what is left
        before, after = text[: labelled.start()].rstrip(), text[labelled.end() :].lstrip()
        dash = _DASH_OPENS.match(after)
        spoken_of = _TOPIC_LAST.search(before) if dash is not None else None
        if dash is not None and spoken_of is None and (asked := _split(before)).body is None:
            # "…announcement up? Title 'Half-term' - holiday club runs …": the words after the dash
            return Split(asked.head, tidy(after[dash.end() :]), labelled["heading"].strip())
        if dash is not None and spoken_of is not None:
            # "…email the Class A lot re the zoo trip consent forms? Subject 'Zoo trip' - forms back
            # to us …": the topic said before heads the words after the dash
            named_first = spoken_of["t"][:1].upper() + spoken_of["t"][1:]
            body = f"{named_first}: {tidy(after[dash.end() :])}"
            return Split(before[: spoken_of.start()].strip(), body, labelled["heading"].strip())
        split = _split(f"{before} {after}")
        if split.body is None and labelled.re is _LINE_HEADING and after:
            split = Split(before, tidy(after))  # "Subject: Trip⏎The bus leaves at 8"
        named = labelled["heading"].strip()
        # "제목은 알아서": the title is left to the writer, so it is the headline
        return Split(split.head, split.body, None if _YOUR_CHOICE.match(named) else named)
    labelled_body = _after_content_label(text)
    if labelled_body is not None and labelled_body.body and labelled_body.heading:
        # "메일 좀 써줘 영어로. subject는 Report card, 내용은 …": both parts labelled
        return labelled_body
    clipped = _KO_CLIPPED_REQUEST.match(text)
    # "…텔그로 보강 일정 안내좀ㅠ 다음주 토욜 오전10시" → "[보강 일정 안내] 다음주 토욜 오전10시";
    # "주차장 공사 공지요~ …"
    if clipped is not None:
        rest = _KO_TITLE_LEFT_TO_YOU.sub("", clipped["rest"]).strip()
        topic = re.search(r"(?:로|으로)\s+(?P<t>\S.{0,20}?)\s*안내\s*좀", clipped["req"])
        direct = korean_direct(rest) or rest
        if len(rest.split()) >= 2:
            body = f"[{topic['t']} 안내] {direct}" if topic else direct
            return Split(clipped["req"].strip(), body)
    # …unless the text is labelled after it and the quote is its title ("\"토요 특강 취소 안내\"
    # 올려줘. 내용은 …")
    sends_a_quote = _QUOTE_SENT_KO.search(text) and not _KO_CONTENT_INSIDE.search(text)
    if sends_a_quote and (whole := _quoted(text)) is not None and whole.body:
        # "…께 SMS로 '오늘 3시 수업 대신 해주실 수 있나요?' 보내줘요. 제가 병원 가야 돼서요": the
        # quote is sent whole, its own question too, and the reason after it is not
        return whole
    first = _KO_REQUEST_FIRST.match(text)
    if first and re.search(r"[가-힣]", first["rest"]):
        return _reported_then_more(first["req"], first["rest"]) or Split(
            first["req"], _korean_message(first["rest"])
        )
    told = _KO_REQUEST_THEN_TOLD.match(text)
    if told is not None:
        return Split(told["req"].strip(), _korean_message(told["rest"]))
    english = _KO_REQUEST_THEN_ENGLISH.match(text) or _KO_NEED_THEN_ENGLISH.match(text)
    if english:  # "올리버씨 한테 텔레그렘으로 영어로 보내줘요 Tomorrow's class is cancelled"
        return Split(english["req"].strip(), tidy(english["rest"]))
    later = _KO_REQUEST_LATER.match(text) or _KO_CHANNEL_ASKED.match(text)
    if later and _a_message(later["rest"]) and not _KO_QUOTE_INSIDE.search(later["req"]):
        return Split(later["req"], _korean_message(later["rest"]))
    if later and _a_message(later["rest"]):
        reported = _reported_then_more(later["req"], later["rest"])
        if reported is not None:
            return reported
    go = _KO_GO.match(text)
    if go and _KO_HURRIED_CHANNEL.search(go["req"]) and len(go["rest"].split()) >= 2:
        # "텔레로 유나쌤 ㄱㄱ 복사실 열쇠 내 책상 서랍에 있다고": "go", then the message
        return Split(go["req"].strip(), korean_direct(go["rest"]) or go["rest"])
    for finder in (
        _after_content_label,
        _quoted,
        _after_colon,
        _asked_whether,
        _after_marker,
        _korean,
        _after_remind_to,
        _after_let_know,
        _after_that,
        _after_channel_comma,
        _after_dash,
    ):
        found = finder(text)
        if found is not None and found.body:
            return found
    return Split(text, None)


def _reported_then_more(req: str, rest: str) -> Split | None:
    """ "…확정됐다고 보내드려, 다음주 수요일 오후 4시야": the message reported inside the request,
    then more of it after; None when the request reports nothing."""
    if not _KO_QUOTE_INSIDE.search(req):
        return None
    inner = _korean(req.rstrip(" ,.!?~"))
    if inner is None or not inner.body:
        return None
    if _REQUESTS_CLOSING_KO.match(rest):  # "…넣어 | 주실 수 있을까요?": the rest is the ask's end
        return Split(f"{inner.head} {rest.strip()}", inner.body)
    return Split(inner.head, f"{inner.body.rstrip('.')}. {_plain_ending(_korean_message(rest))}")


def _without_the_requests_mark(body: str) -> str:
    """The text of a request asked as a question ("Could you send him an SMS saying …?"): its
    "?" is the request's, and what follows it ("Thank you so much, and sorry …") is said to us.
    A text that is a question of its own keeps its mark."""
    said, mark, after = body.partition("?")
    own_question = bool(_A_QUESTION_OF_ITS_OWN.match(said))
    if not mark or (after.strip() and not _SAID_TO_US.match(after.strip())):
        return body
    if not after.strip() and own_question:
        return body
    return said.rstrip() + ("?" if own_question else ".")


_REQUESTS_CLOSING_KO = re.compile(
    r"^\s*(?:(?:주실|줄)\s*수\s*(?:있|없)\S*|주세요|주십시오|줘요?|줄래요?|주실래요|부탁\S*)\s*[.!?~]*\s*$"
)


def _plain_ending(sentence: str) -> str:
    """A fact told to the assistant in plain speech, as the message says it: "오후 4시야" →
    "오후 4시입니다"."""
    return re.sub(r"(?<=[가-힣0-9])(?:이)?야\s*[.!~]*$", "입니다", sentence.strip())


_LATIN_THEN_SAID_KO = re.compile(
    r"\s*(?:(?:영어|영문)로\s+)?(?P<said>[A-Za-z][^가-힣]*?)\s*(?:이)?(?:라고|라구)(?:만|요)?"
    r"(?:\s*(?:좀\s*)?(?:보내|써|전해|남겨|해)\S*)?\s*[.!~]*"
)


def _korean_message(rest: str) -> str:
    """The message after a Korean request sentence: a label ("내용은 '…'입니다") and a closing
    verb of its own ("…5시라고 써 주세요") are the request's, not the message's."""
    label = _KO_CONTENT_LABEL.match(rest)
    if label and label["q"]:
        return label["q"].strip()
    quoted = re.fullmatch(r"\s*[\"'“‘](?P<q>[^\"'“”‘’]{2,})[\"'”’]\s*[.!~]*\s*", rest)  # noqa: RUF001
    if quoted:  # "body는 '학부모 상담의 밤이 열립니다'"
        return quoted["q"].strip()
    rest = rest[label.end() :] if label else rest
    latin = _LATIN_THEN_SAID_KO.fullmatch(rest)
    if latin:  # "영어로 im running 10 min late sorry 라고만 보내줘": the English text as typed
        return latin["said"].strip()
    rest = _KO_SORRY_TO_BOTHER.sub("", rest)  # "…진행된다는 것입니다. 번거롭게 해드려 죄송해요."
    include = _KO_INCLUDE_THESE.search(rest)
    if include:  # "…받는다는 거랑 자리 한정이라는 거 꼭 넣어줘": the facts to include, each said
        facts = _KO_AND_THE_FACT.split(rest[: include.start()])
        return ". ".join(d.rstrip(".") for fact in facts if (d := korean_direct(fact)))
    return korean_direct(_KO_SAY_IT.sub("", rest))


_KO_SORRY_TO_BOTHER = re.compile(
    r"(?<=[.!~])\s*(?:번거롭게|귀찮게|바쁘신데)\s*(?:해\s*)?(?:드려(?:서)?|드리게 돼서)?\s*"
    r"(?:정말\s*)?(?:죄송해요|죄송합니다|미안해요|죄송)[.!~ㅠㅜ]*\s*$"
)
# "…라는 거 꼭 넣어줘", "…다는 것도 포함해 주세요": the facts the text must hold, then the ask.
_KO_INCLUDE_THESE = re.compile(
    r"(?<=거|것)(?:도)?\s*(?:꼭|좀|다)?\s*(?:넣어|포함해|포함시켜|적어|써)\s*"
    r"(?:줘요?|주세요|주라|달라)?\s*[.!~]*$"
)
_KO_AND_THE_FACT = re.compile(r"(?<=거|것)(?:이랑|랑|하고|과|와|,)\s*")


def answered_text(answer: str, *, ko: bool) -> str:
    """The message in the answer to "what should it say?": "내용은 …다고" → "…습니다",
    "say the bus is late" → "The bus is late"."""
    if ko:
        return _korean_message(answer.strip()) or answer.strip()
    return tidy(_ANSWER_LEAD.sub("", answer.strip(), count=1)) or tidy(answer)


_ANSWER_LEAD = re.compile(
    r"^(?:(?:it|that)\s+(?:should|can|could)\s+say|just\s+say|say|tell\s+(?:him|her|them)"
    r"(?:\s+that)?|(?:the\s+)?(?:message|text|body)\s*(?::|is|should be))\s*:?\s+",
    re.IGNORECASE,
)


_KO_STATEMENT_END = re.compile(
    r"(?:니다|어요|아요|예요|에요|해요|세요|다|다고|라고|다구|라구)\s*[.!~]*$"
)


def _a_message(rest: str) -> bool:
    """The words after a Korean request sentence are its message: Korean, a few words, not a
    closing thanks ("감사합니다") said to the assistant, and not "— 이름 — 내용" (see
    ``_after_dash``: who may still follow)."""
    words = len(rest.split())
    return (
        bool(re.search(r"[가-힣]", rest))
        # two words are a message when they end as a sentence does: "내일 휴원입니다"
        and (words >= 3 or (words == 2 and bool(_KO_STATEMENT_END.search(rest))))
        and not _KO_CLOSING.match(rest)
        and not _DASH.search(f" {rest}")
    )


def request_words_removed(text: str) -> str:
    """``text`` without the closing words of a request ("문자 좀 해줘", "리마인더 걸어줘",
    "please"): what is left of a request that named no text is then nothing at all."""
    text = _KO_TAIL.sub("", text) if re.search(r"[가-힣]", text) else text
    return _CLOSING_THANKS.sub("", text).strip()


def tidy(body: str) -> str:
    """The body as sent: trimmed, a trailing question mark of the request dropped, first
    letter capitalised ("that class moved to 3pm?" → "Class moved to 3pm")."""
    body = _POINTED_AT.sub("", _THANKED_AFTER_ASKING.sub("", body.strip()))
    body = body.strip().strip("\"'“”‘’").strip()  # noqa: RUF001
    body = re.sub(r"\s*(?:,?\s*please|,?\s*thanks?(?: you)?)?\s*\?+$", "", body)
    # A closing "thanks!" / "please" / "cheers" thanks the assistant, not the recipient.
    body = _CLOSING_THANKS.sub("", _SIGNED_OFF.sub("", body))
    body = _ON_MY_BEHALF.sub("", body).strip()
    body = _BARE_REMIND.sub("Reminder: ", body)
    return body[:1].upper() + body[1:] if body else body


# "…send telegram to Yuna teacher, remind report card deadline": the verb asks for a reminder
# of the thing named after it ("Reminder: report card deadline"); not when someone is named
# ("remind Emma that …", "remind them to …").
_BARE_REMIND = re.compile(
    r"^[Rr]emind\s+(?:about\s+|of\s+|re\s+)?"
    r"(?!(?:him|her|them|me|us|you|everyone|everybody|all|to|that|the\s+\w+\s+(?:to|that))\b)"
    r"(?=[a-z0-9])"
)


# After a labelled title, "내용" alone labels the text too.
_KO_BARE_CONTENT = re.compile(r"[,.]\s*(?:내용|본문)\s+(?=\S)")


def _after_content_label(text: str) -> Split | None:
    """ "teacher James 에게 email pls, 내용은 이번 주 출석부 확인 부탁드려요": the request, then
    its labelled text."""
    match = _KO_CONTENT_INSIDE.search(text)
    if match is None and re.search(r"제목|subject|title", text, re.IGNORECASE):
        match = _KO_BARE_CONTENT.search(text)  # "제목은 …, 내용 4시10분 출발 → …"
    if match is None or not match.start():
        return None
    head, body = text[: match.start()].strip(" ,"), _korean_message(text[match.end() :])
    heading = _HEADING_BEFORE.search(head)  # "제목: 3월 수강료 안내 / 내용: …"
    if heading is None:
        return Split(head, body)
    return Split(head[: heading.start()].strip(" ,."), body, heading=heading["heading"])


def _quoted(text: str) -> Split | None:
    match = _QUOTED.search(text) or _KO_SINGLE_QUOTED.search(text)
    if match is None and re.search(r"[가-힣]", text):
        match = _SINGLE_QUOTED_WORDS.search(text)  # "…보내줘 'Can you cover my class today?'"
    if match is None:
        return None
    head = (text[: match.start()] + " " + text[match.end() :]).strip()
    return Split(head, match["body"].strip())


def _after_colon(text: str) -> Split | None:
    match = _COLON.search(text)
    if match is None:
        return None
    head, rest = text[: match.start()].strip(), text[match.end() :]
    if _PREAMBLE.match(head) and (_REQUEST_START.match(rest) or _TIMED_REQUEST_START.match(rest)):
        # "Quick one: text Emma that …", "set a reminder: today 4pm telegram Oliver that …": the
        # request follows; the words before the colon stay in the head, where "tomorrow 6pm:
        # email all the teachers that …" says when
        after = split_message(rest)
        return Split(f"{head}: {after.head}", after.body, after.heading)
    if _PREAMBLE.match(head) and not _CHANNEL_WORD.search(head):
        after = split_message(rest)  # "Next thing: Oliver asked … Just say …"
        if after.body:
            return Split(f"{head}: {after.head}", after.body, after.heading)
    return Split(head, _direct(tidy(rest)))


def _after_dash(text: str) -> Split | None:
    """ "announcement for class A parents - picture day is next week", "B반 부모님들 공지 — 영어
    연극 발표회 …", "공지 ㄱㄱ 제목 난방 점검 / 내일 …": a short request naming its channel, then
    a dash or slash between spaces, then the text."""
    match = _DASH.search(text)
    if match is None:
        return None
    head, rest = text[: match.start()].strip(), text[match.end() :].strip()
    if len(head.split()) > 12 or len(rest.split()) < 2:
        return None
    if not (_CHANNEL_WORD.search(head) or _POSTED.match(head)):
        return None
    return Split(head, _direct(tidy(rest)))


# "post smth for everyone - heating's broken upstairs": posting names the notice board.
_POSTED = re.compile(r"^(?:(?:pls|please|can you|could you)\s+)?(?:post|put up)\b", re.IGNORECASE)


def _direct(body: str) -> str:
    """A Korean text after a colon or dash may still be reported ("— 상담 잊지 마시라고")."""
    return korean_direct(body) or body if re.search(r"[가-힣]", body) else body


def _after_channel_comma(text: str) -> Split | None:
    """ "send Emma and Oliver an email, the class B newsletter for December is out": a short
    request ending in its channel noun, a comma, then the text (a group named in it is content)."""
    match = _CHANNEL_COMMA.match(text)
    if match is None or len(match["head"].split()) > 10 or len(match["body"].split()) < 3:
        return None
    if _MORE_NAMES.match(match["body"]):
        return None
    return Split(match["head"], tidy(match["body"]))


# "email James to ask if he can take notes for me": the question itself goes out ("Could you
# take notes for me?"), as "…는지 여쭤봐" does in Korean.
_ASKED_WHETHER = re.compile(
    r"[\s,]*\b(?:to |and )?ask(?:ing)?(?: (?:him|her|them))? (?:if|whether) (?:he|she|they)"
    # "ask if she'd share her lesson plan": the contracted "would" too
    r"(?: (?P<modal>can|could|would|will|is able to|are able to|might|may)|(?P<d>['’]d)) "  # noqa: RUF001
    r"(?P<ask>.+?)\s*[?.!]*$",
    re.IGNORECASE,
)
_POLITE_MODAL = {"would": "Would", "will": "Would"}


def _asked_whether(text: str) -> Split | None:
    match = _ASKED_WHETHER.search(text)
    if match is None or match.start() == 0:
        return None
    modal = "Would" if match["d"] else _POLITE_MODAL.get(match["modal"].lower(), "Could")
    # "…bring her spare charger" is asked of her: "Could you bring your spare charger?"
    ask = addressed_to_them(match["ask"])
    head, question = text[: match.start()].strip(), _question_to_them(modal, ask)
    told = _TOLD_FIRST.search(head)  # "explain that the invoice is unpaid, and ask whether …"
    if told is None:
        return Split(head, question)
    said = tidy(told["told"]).rstrip(" ,;")
    return Split(head[: told.start()].strip(" ,"), f"{said.rstrip('.')}. {question}")


_TOLD_FIRST = re.compile(
    r"\b(?:explain(?:ing)?|say(?:ing)?|mention(?:ing)?|(?:tell(?:ing)?|inform(?:ing)?|remind(?:ing)?)"
    r" (?:him|her|them)|let(?:ting)? (?:him|her|them) know)(?:,\s*\w+,)?\s+(?:that\s+)?"
    r"(?P<told>\S.{8,}?)\s*,?\s*$",
    re.IGNORECASE,
)


def _question_to_them(modal: str, ask: str) -> str:
    """ "cover my 4pm class today? I have a dentist appointment" → "Could you cover my 4pm
    class today? I have a dentist appointment.": the question is the first sentence only."""
    question, _, after = re.sub(r"([?.!])\s+", r"\1\n", ask.strip(), count=1).partition("\n")
    question = tidy(question.rstrip("?.! "))
    said = f"{modal} you {question[:1].lower()}{question[1:]}?"
    return f"{said} {tidy(after)}" if after.strip() else said


# "email James asking him to send me his lesson plans": the asking goes out as a question to
# him ("Could you send me your lesson plans?").
_ASKING_THEM_TO = re.compile(
    rf"^\s*(?:,\s*)?(?:and\s+|to\s+)?ask(?:ing)?\s+{_ASKED_PEOPLE}\s+to\b", re.I
)


# "I've got something I need to tell him - could you email James?": what is to be told, not
# the telling of it
_SOMETHING_TO_TELL = re.compile(
    r"\bsomething(?: important| urgent)?(?: (?:that )?(?:i|we))? "
    r"(?:need|have|want|ve got|got) to\s*$",
    re.IGNORECASE,
)


def _after_marker(text: str) -> Split | None:
    match = _SAYING.search(text)
    if match is None or match.start() == 0 or _SOMETHING_TO_TELL.search(text[: match.start()]):
        return None
    head, rest = text[: match.start()].strip(), text[match.end() :]
    if _ASKING_THEM_TO.match(match.group(0)):
        return Split(head, _question_to_them("Could", addressed_to_them(rest)))
    return Split(head, tidy(rest))


# Words about the recipients, said to them: "their slips" → "your slips".
_YOUR = {
    "their": "your",
    "his": "your",
    "her": "your",
    "theirs": "yours",
    "themselves": "yourselves",
    "himself": "yourself",
    "herself": "yourself",
}
_THEIR = re.compile(r"\b(?:" + "|".join(_YOUR) + r")\b", re.IGNORECASE)


def addressed_to_them(text: str) -> str:
    """``text`` about its recipients, turned to them: "sign their slips" → "sign your slips"."""
    return _THEIR.sub(lambda m: _YOUR[m[0].lower()], text)


# "could you let Choi Yuna know James will be her substitute tomorrow?": who is told, then what
# (a name inside it is what is said, not another recipient).
_LET_KNOW = re.compile(
    r"\blet(?:ting)?\s+(?!(?:him|her|them|me|us)\b)[^,.?!]{1,40}?\s+know\b(?:\s+that)?\s+(?=\S)",
    re.IGNORECASE,
)


# "…let all staff know through an announcement that …": how they are told, then what.
_THROUGH_A_CHANNEL = re.compile(
    rf"^(?:through|via|by|in|with|on)\s+(?:an?\s+|the\s+)?(?:\w+\s+)?"
    rf"(?:{_CHANNEL_NAME}|announcement|notice|message)\b(?:\s+that)?\s+",
    re.IGNORECASE,
)
# "… Would you set that up?": the request's own closing question, after the text.
_SET_THAT_UP = re.compile(
    r"(?<=[.!])\s+(?:would|could|can|will) you (?:please )?(?:set|sort|put|get|do|arrange)"
    r" (?:that|this|it)(?: up| out| together| done| for me)?\s*\?*\s*$",
    re.IGNORECASE,
)


def _after_let_know(text: str) -> Split | None:
    match = _LET_KNOW.search(text)
    if match is None:
        return None
    head, rest = text[: match.end()].strip(), text[match.end() :]
    if how := _THROUGH_A_CHANNEL.match(rest):
        head, rest = f"{head} {how.group(0).strip()}", rest[how.end() :]
    rest = _SET_THAT_UP.sub("", rest.strip())
    if len(rest.split()) < 3:
        return None
    return Split(head, tidy(rest))


def _after_that(text: str) -> Split | None:
    match = _THAT.search(text)
    if match is None:
        return None
    return Split(text[: match.start()].strip(), tidy(text[match.end() :]))


# "email the parents in 5 days to remind them the fees are due": reminded of a statement with no
# "that" before it.
_REMIND_THEM = re.compile(
    r"\bto remind (?:them|him|her|everyone|all of them|the \w+)\s+"
    r"(?=(?:the|their|his|her|its|our|your|everyone|tomorrow|today)\b)",
    re.IGNORECASE,
)


# "could you email Emma Wilson a reminder about the book fair?": the text is that reminder.
_REMINDER_ABOUT = re.compile(
    r"\b(?:a |an )?(?:(?:quick|friendly|gentle|short) )?reminder (?:about|of|re|regarding)\s+",
    re.IGNORECASE,
)


def _after_remind_to(text: str) -> Split | None:
    match = _REMIND_TO.search(text) or _REMIND_THEM.search(text)
    if match is not None:
        return Split(text[: match.end()].strip(), tidy(text[match.end() :]))
    about = _REMINDER_ABOUT.search(text)
    if about is None or len(text[about.end() :].split()) < 2:
        return None
    topic = text[about.end() :].strip(" ?.!")
    return Split(text[: about.start()].strip(), tidy(f"Reminder: {topic}"))


# "보내달라고 해줘", "써 달라고 전해 주세요": ask the recipient to do it.
_KO_ASK_THEM_TO = re.compile(r"(?P<v>보내|전해|써|넣어|올려|알려|남겨|확인해)\s*달라고\s*")


def _korean(text: str) -> Split | None:
    """ "엠마에게 수업이 3시로 옮겨졌다고 전해줘" → head "엠마에게 전해줘", body "수업이 3시로
    옮겨졌습니다"; "학부모에게 내일 휴교입니다 문자 보내줘" → body "내일 휴교입니다"."""
    if not re.search(r"[가-힣]", text):
        return None
    tail = _KO_TAIL.search(text)
    if tail is None:
        return None
    clause, verb = text[: tail.start()].strip(), text[tail.start() :].strip()
    if written := re.search(
        r"(?<=고)\s*(?:써서|적어서)$", clause
    ):  # "…부탁드린다고 써서 보내줄래요?"
        clause, verb = clause[: written.start()], f"{written.group(0).strip()} {verb}"
    if favour := _KO_ASK_THEM_TO.match(verb):
        # "…목록 정리해서 보내달라고 해줘": the recipient is asked to send; that is the message
        clause, verb = f"{clause} {favour['v']} 주세요", verb[favour.end() :].strip() or verb
    split = _korean_sentences(clause, verb)
    if split is not None and split.body and (told := _KO_DESCRIBED_NOTICE.match(split.body)):
        # "…손 씻기를 권고하는 안내문을 게시하기 바랍니다": the notice described is what it says
        split = replace(split, body=f"{told['said']}합니다")
    if split is not None and split.body and (about := _KO_ABOUT_THE_SENDING.match(split.body)):
        # "같은 내용으로 문자 보내드려야 하는데요, …": a clause about the sending is the request's
        # "…약하다 이런 내용으로": the words said roughly, and the label of them
        rest = _KO_THIS_KIND_LAST.sub("", split.body[about.end() :]).strip()
        if rest:
            return Split(f"{split.head} {about.group(0).strip(' ,')}", rest)
    return split


_KO_THIS_KIND_LAST = re.compile(r"\s*(?:이런|요런|그런)\s*(?:내용|느낌|식)(?:으로|로)?\s*$")
# A notice described by what it does: "마스크 착용을 권고하는 (안내문을)", "…를 요청하는 공지"
_KO_DESCRIBED_NOTICE = re.compile(
    r"^(?P<said>\S.*\S)하는(?:\s*(?:안내문|안내글|공지문|공지글|안내|글))?(?:을|를)?$"
)


# A leading clause about the sending itself, ending in a connective: "같은 내용으로 문자
# 보내드려야 하는데요,", "메일 하나 써야 돼서".
_KO_ABOUT_THE_SENDING = re.compile(
    rf"^(?:\S+\s+){{0,4}}?\S*{_KO_CHANNEL}\S*\s+(?:\S+\s+){{0,2}}?"
    r"\S*(?:는데요|는데|니까|어서|아서|해서|돼서)\s*[,.]\s*"
    # "상담결과 보내드려야 하는데ㅠ 대충 …": what is to be sent, then the words of it
    r"|^(?:\S+\s+){0,3}?(?:보내|전해|전달해|알려)\s?(?:드려|줘)?야\s?(?:하는데|되는데|해서|돼서)요?"
    r"(?:\s*[,.]|[ㅋㅎㅠㅜ]+)?\s+"
)


def _korean_sentences(clause: str, verb: str) -> Split | None:
    *context, last = SENTENCE_END.split(clause)
    if context and (_KO_QUOTE_END.search(last) or _KO_THE_FACT.search(last)):
        # "올리버 아버님이 … 편하다고 하셨거든요. 그쪽으로 … 바뀐다고 전해 주시면 …": the
        # sentences before the one that asks explain it; the message is in the last one ("…라고"
        # or "…부탁드린다는 내용으로").
        split = _korean_clause(last, verb)
        return Split(f"{' '.join(context)} {split.head}", split.body) if split else None
    return _korean_clause(clause, verb)


def _korean_clause(clause: str, verb: str) -> Split | None:
    """``_korean`` for the clause before the closing ``verb``."""
    topic = _KO_TOPIC_FIRST.match(clause)
    if (
        topic
        and len(topic["topic"].split()) >= 2
        and _KO_RECIPIENT.search(topic["rest"])
        and not _KO_RECIPIENT.search(topic["topic"])
    ):
        # "금일 정전으로 인한 휴강 공지를 A반 학부모 게시판에 게시하십시오": what it is about,
        # the channel as the object, then who; the topic is the text.
        reported = korean_direct(topic["topic"])
        head = f"{topic['channel']} {topic['rest']} {verb}"
        return Split(head.strip(), reported) if reported else None
    recipients = list(_KO_RECIPIENT.finditer(clause))
    quoted = [(r, end) for r in recipients if (end := _quote_end_before(clause, r)) is not None]
    if quoted:  # "…하라고 나한테 알려줘", "…휴강이라고 민지 어머님께": who follows the quote
        who, end = quoted[-1]
        body = clause[:end].strip()
        when = _KO_LEADING_TIME.match(body)
        if when and not (_KO_CLOCK.search(when.group(0)) or _KO_ME.match(who.group(0))):
            when = None  # "내일 휴강이라고 민지 어머님께": the day is what the message says
        head = f"{when.group(0) if when else ''} {clause[end : who.end()].strip()}".strip()
        body = body[when.end() :] if when else body
    elif audience := _KO_AUDIENCE.match(clause):  # "B반 학부모님들 대상으로 …" (announcements)
        body, head = clause[audience.end() :].strip(), audience.group(0).strip()
    elif recipients:
        who = recipients[0]
        body, head = clause[who.end() :].strip(), clause[: who.end()].strip()
    elif via := _KO_CHANNEL_VIA.search(clause):  # "teachers 그룹 문자로 월말 정산 서류 제출 …"
        body, head = clause[via.end() :].strip(), clause[: via.end()].strip()
    else:
        body, head = clause, ""
    lead = _KO_CHANNEL_LEAD.match(body) or _KO_WHO_AND_CHANNEL_FIRST.match(body)
    if lead:
        head, body = f"{head} {lead.group(0).strip()}", body[lead.end() :]
    if len(body.split()) < 2 and not _KO_QUOTE_END.search(body):
        return None  # "교재비 리마인더 걸어줘": a topic, not yet what to say ("휴강이라고" is)
    reported = korean_direct(body)
    return Split(f"{head} {verb}".strip(), reported) if reported else None


def _quote_end_before(clause: str, who: re.Match[str]) -> int | None:
    """Where the reported message ends when it comes right before the recipient, a name of at
    most two words in between ("…휴강이라고 민지 어머님께"), else None."""
    ends = list(_KO_QUOTE_MID.finditer(clause, 0, who.start()))
    if not ends or len(clause[ends[-1].end() : who.start()].split()) > 2:
        return None
    return ends[-1].end()


# A reason for asking that follows the reported speech: "…휴원한다고 다들 아셔야 하니까",
# "…바뀌었다고 헷갈리실 수 있어서".
_KO_REASON_AFTER = re.compile(
    r"(?<=다고|라고)\s+(?:\S+\s+){0,5}\S*(?:니까|니깐|는데|어서|아서|해서|라서|지만|도록)\s*[.,]?$"
)


_KO_SPOKEN_GO = re.compile(r"(다|라|자|냐)구(?=요?[ㅋㅎㅠㅜ]*(?:\s|$|[.!~?]))")


def direct_if_reported(body: str | None) -> str | None:
    """A body still told as what the message is to say ("…올려 달라는 알림 좀 걸어 둬 주세요")
    as the message itself ("…올려 주세요"); any other body as it is, but for a reported clause
    inside it."""
    if body is None:
        return body
    body = _reported_clauses_direct(body)
    if not _KO_THE_FACT.search(body):
        return body
    return korean_direct(body) or body


# A reported clause inside the text, another clause after it: "낼 2층 교실 좀 추울수있다고 애들
# 겉옷 챙기세요". Not one that a verb of saying or thinking takes ("아프다고 해서", "그렇다고
# 들었어요", "괜찮다고 생각합니다").
_KO_MID_REPORTED = re.compile(
    r"(?<=[가-힣])(?<!이)(?<!하)(다고|라고)[ㅋㅎㅠㅜ~]*\s+"
    r"(?!(?:하|해|했|합|들|전해|전달|말|생각|그러|그래|적|써|쓰|알려|보내|문자|메일|공지|좀)\S*)(?=\S)"
)


def _reported_clauses_direct(body: str) -> str:
    if not re.search(r"[가-힣]", body):
        return body
    told, start = [], 0
    for found in _KO_MID_REPORTED.finditer(body):
        direct = korean_direct(body[start : found.end(1)])
        if not direct:
            return body
        told.append(direct.rstrip(". ") + ".")
        start = found.end()
    return " ".join([*told, body[start:]]) if told else body


def korean_direct(clause: str) -> str:
    """Korean reported speech as the direct, polite message: "…옮겨졌다고" → "…옮겨졌습니다",
    "…전화하라고" → "…전화하세요", "…휴교라고" → "…휴교입니다", "…왔냐고" → "…왔나요?"."""
    clause = _KO_SPOKEN_GO.sub(r"\1고", clause.strip())  # "…드린다구" is "…드린다고" spoken
    clause = _KO_THE_FACT.sub(
        lambda m: f"{next(group for group in m.groups() if group)}고", clause
    )  # "…마감됐다는 거": "…마감됐다고"
    clause = _KO_REASON_AFTER.sub("", clause)  # "…휴원한다고 다들 아셔야 하니까": why, not what
    asked = _KO_ASKED_WHETHER.search(clause)  # "언제 오시는지 여쭤봐" asks "언제 오시나요?"
    if asked:
        return clause[: asked.start()] + ("인가요?" if asked.group(0) == "인지" else "나요?")
    quote = _KO_QUOTE_END.search(clause)
    if quote is None:
        return clause
    said = clause[: quote.start()].rstrip()
    ending = quote.group(0).strip(" .!~ㅋㅎㅠㅜ").removesuffix("요")
    if not said:
        return ""
    if ending == "다고" and said.endswith("부탁한"):  # "확인 좀 부탁한다고" → "확인 부탁드립니다"
        return re.sub(r"\s*좀\s*(?=부탁한$)", " ", said)[:-1] + "드립니다"
    if ending == "다고":
        return _polite(said + "다")
    if ending == "냐고":
        return said + "나요?"
    if ending == "자고":
        return said + "시다" if said.endswith("합") else said + "자"
    if ending == "하고":
        return said
    return _said_with_rago(said, ending)


def _said_with_rago(said: str, ending: str) -> str:
    if said[-1] in "'\"’”" and said[0] in "'\"‘“":  # noqa: RUF001 ("'Please bring …' 라고")
        return said.strip("'\"‘’“” ")  # noqa: RUF001
    if said[-1] in "다요죠까.!?" or (ending == "라고" and said.endswith(("니다", "세요"))):
        return said  # a direct quote: "…휴교입니다라고"
    if ending == "라고" and said.endswith("달"):
        return said[:-1].rstrip() + " 주세요"  # "써 달라고" → "써 주세요": asked as a favour
    if ending == "라고" and said.endswith("시") and not _CLOCK_SI.search(said):
        return said[:-1] + "세요"  # "오시라고" → "오세요", "입금하시라고" → "입금하세요"
    if ending == "라고" and said.endswith("말"):
        return said[:-1] + "마세요"  # "늦지 말라고" → "늦지 마세요"
    if ending == "라고" and _ORDERED_STEM.search(said):
        return said + "세요"  # an order: "전화하라고" → "전화하세요", "챙기라고" → "챙기세요"
    if said.endswith("으") and ending == "라고":
        return said + "세요"
    return said + "입니다"  # a noun: "휴교라고" / "휴교이라고" → "휴교입니다"


# The last syllable of a verb stem ordered with "-라고": "전화하라고", "챙기라고", "쓰라고".
_ORDERED_STEM = re.compile(r"(?:하|오|주|보|내|서|두|치|켜|기|리|우|추|르|쓰|끄|키)$")
# "5시라고", "열 시라고": an hour, a noun ("5시입니다"), not the honorific "-시" of "오시라고".
_CLOCK_SI = re.compile(r"(?:\d|[한두세네섯곱덟홉열]|\s)시$")


def _polite(plain: str) -> str:
    """A plain "-다" sentence in the polite "-ㅂ니다/-습니다" form."""
    stem = plain[:-1]
    if not stem or stem.endswith("니"):
        return plain
    if stem.endswith("는") and len(stem) > 1 and _final(stem[-2]) != 0:
        return stem[:-1] + "습니다"  # 먹는다 → 먹습니다
    last = stem[-1]
    final = _final(last)
    if final is None:
        return plain
    if final == 0:
        return stem[:-1] + _with_final(last, 17) + "니다"  # 크다 → 큽니다, 이다 → 입니다
    if final == 4:
        return stem[:-1] + _with_final(last, 17) + "니다"  # 간다 → 갑니다, 한다 → 합니다
    return stem + "습니다"  # 했다 → 했습니다


def _final(syllable: str) -> int | None:
    """The final-consonant index of a Hangul syllable (0: none), None for other characters."""
    code = ord(syllable) - 0xAC00
    return code % 28 if 0 <= code < 11172 else None


def _with_final(syllable: str, final: int) -> str:
    code = ord(syllable) - 0xAC00
    return chr(0xAC00 + code - code % 28 + final)


# "Re the fire drill tomorrow at 10: please notify all teachers …": what the message is about,
# said first (its subject; its time is the topic's, not when to send)
TOPIC_FIRST = re.compile(
    r"^\W*(?:re:?|regarding|concerning|about|as for)\s+(?P<t>[^:]{2,60}?):\s+(?=\S)",
    re.IGNORECASE,
)


def subject_of(head: str) -> str | None:
    """An e-mail subject named in the head: "subject Trip", "about the staff meeting"."""
    topic = TOPIC_FIRST.match(head)
    if topic is not None:
        return topic["t"][:1].upper() + topic["t"][1:]
    match = _SUBJECT.search(head)
    if match is None:
        return None
    subject = (match["s"] or match["about"] or match["about2"] or "").strip()
    return subject[:1].upper() + subject[1:] if subject else None


# "titled 'Winter Break'", "called Lost property", "제목: 난방 점검" / "제목은 난방 점검".
_TITLE = re.compile(
    r"(?:\b(?:titled|title(?:d)?\s*:|called|headed|(?:call|name|title) it)|제목(?:은|을|:|：)?)"  # noqa: RUF001
    r"\s*(?P<t>.+?)\s*[.!?]*$",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"(?<=[.!?。])\s|\n|\s*[,;/]\s+|\s+[-–—]\s+")  # noqa: RUF001


def title_of(head: str) -> str | None:
    """An announcement title the request names as one ("titled 'Winter Break'"); None when
    it names none: the rest of a request ("We need", "하나") is never a title."""
    match = _TITLE.search(head)
    if match is None:
        return None
    title = match["t"].strip().strip("\"'“”‘’「」『』").strip()  # noqa: RUF001
    if _YOUR_CHOICE.match(title):
        return None  # "제목은 걍 알아서": the title is left to the writer, so it is the headline
    return title[:1].upper() + title[1:] if title else None


_YOUR_CHOICE = re.compile(
    r"(?:걍|그냥|대충)?\s*(?:알아서|아무거나|적당히)|"
    r"(?:whatever|anything|up to you|you (?:decide|choose|pick))\b",
    re.IGNORECASE,
)


def headline(body: str, limit: int = 60) -> str:
    """The first clause of the message, as a title or subject: "The photocopier code has
    changed, ask Yuna …" → "The photocopier code has changed"."""
    text = body.strip()
    bracketed = re.match(r"\[(?P<label>[^\]]{2,40})\]", text)
    if bracketed:  # "[교재비 안내] 이번주까지 …": the notice names itself
        return bracketed["label"].strip()
    first = _CLAUSE_END.split(text, maxsplit=1)[0].strip().rstrip(".:")
    if len(first.split()) < 2:  # "Hi, …" or "Reminder: …": one word is not a headline
        first = re.split(r"(?<=[.!?。])\s|\n", text, maxsplit=1)[0].strip().rstrip(".")
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"
