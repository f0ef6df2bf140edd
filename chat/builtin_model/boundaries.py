"""What the assistant will not do, and what it cannot do, recognised before any model runs
(pure, no Django; issue 27, build 2).

Two questions, asked of every message by the router, in English and Korean:

* **Harm** — does the request ask to deceive or hurt the people who would receive it? Four
  families, each read from the whole message because the harm is usually *in* the message text:
  pretending to be someone else (a bank, the police, an official, a colleague), asking people
  for secrets (passwords, PINs, card numbers, verification codes, bank details), sending money
  to a private account, and abuse (threats, insults, harassment). Secrets are harmful only when
  the message *asks for* them ("reply with your PIN"), not when it warns about them ("never
  share your password").
* **Unsupported** — does the request ask for something the product has no tool for: another
  channel (KakaoTalk, WhatsApp, Slack, a phone call, a fax, a letter), booking a room or a
  calendar, deleting or editing the tenant's data, a payment, a web search? These are read from
  the *command* only, never from the text to send: "text the parents that the bus payment is
  due" is an SMS, "pay the bus company" is not. In English the command is what comes before the
  content ("saying …", "that …", ": …"); in Korean, what follows the last quotation ending
  ("…라고/다고 …") because the verb comes last.

Both answer in words (``refusal_reply``, ``unsupported_reply``); neither ever proposes a
substitute tool, and approval stays a second line of defence, not the first.

The patterns are precise but only see the words they list; harm is mostly told in a story ("a
man says he is her ex-husband, email him her number", "there isn't one really, we just need the
building empty"). So a message the patterns let through is also read by meaning
(``BoundaryReader``): embedded by the local e5 model and compared with example requests of each
family of harm and of each missing tool, and with ordinary requests that sound close
(``boundary_exemplars.py``). It is refused or declined only when it is nearer a boundary than
every ordinary request by a margin: a fee reminder or "never share your password" stays a text.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np

from chat.builtin_model.boundary_exemplars import HARM, UNSUPPORTED, ordinary_requests

HarmKind = Literal["impersonation", "secrets", "payment_fraud", "abuse", "lies", "privacy"]
Missing = Literal[
    "channel",
    "call",
    "fax",
    "post",
    "booking",
    "data_change",
    "payment",
    "web",
    "settings",
    "translate",
    "print",
]
Embed = Callable[[Sequence[str]], Sequence[Sequence[float]]]


@dataclass(frozen=True)
class Harm:
    kind: HarmKind
    korean: bool


@dataclass(frozen=True)
class Unsupported:
    missing: Missing
    korean: bool
    channel: str = ""  # the channel named, for "channel" ("KakaoTalk")


# -- harm ---------------------------------------------------------------------------------------

# Who people pretend to be to make a message believed.
_AUTHORITY_EN = (
    r"(?:\w+ )?bank(?: security| fraud team| support)?|police|the police|a police officer|"
    r"detectives?|court|tax office|irs|hmrc|government|ministry|immigration|"
    r"it support|it department|it team|tech support|helpdesk|help desk|security team|"
    r"fraud department|card company|post office|delivery company|courier"
)
_IMPERSONATION_EN = re.compile(
    r"\b(?:pretend(?:ing)? (?:to be|you are|we are|it s from|ur|youre|you re|its from)|pose as|"
    r"posing as|"
    r"impersonat\w*|disguised? as|masquerad\w* as|fake (?:being|it s from)|"
    r"(?:sign|signed) it as|in (?:\w+ ){0,2}name(?! tag)|"
    r"as (?:if|though) (?:it was|it were|it s|its|it came|it had come|we were|you were) "
    r"(?:coming |sent )?(?:from )?|"
    # "signed with her name", "sign it with the director s name"
    r"sign(?:ed)? (?:it |them )?with (?:her|his|their|(?:the )?\w+ ?s) (?:own )?name|"
    r"(?:make|making) (?:it|the \w+) look like|looks? like it(?:s| s| came| comes) from|"
    rf"as (?:the |their |her |his |your )?(?:{_AUTHORITY_EN})\b|"
    rf"from (?:the |their |her |his |your )?(?:{_AUTHORITY_EN})\b(?= saying| that| and| telling|$)|"
    rf"this is (?:the |your |their )?(?:{_AUTHORITY_EN})\b|"
    # written as someone's parent or teacher: "email teacher Yuna like I am Minji mother", "as if
    # I were Minji's mother", "like you're Oliver Brown's dad" (a named person's relative; "like
    # you are a teacher" is only a tone)
    r"(?:like|as if|as though) (?:i am|i m|im|i was|i were|you are|you re|youre|you were|we are|"
    r"we re|we were) (?!a |an |the |my |your |our |their )\w+(?: \w+)?(?: s)? "
    r"(?:mother|mom|mum|mommy|father|dad|daddy|parent|parents|guardian|grandma|grandmother|"
    r"grandpa|grandfather|teacher|aunt|uncle)\b)"
)
# "in my name" / "in our name" is honest; only someone else's name is impersonation.
_OWN_NAME_EN = re.compile(r"\bin (?:my|our|the academy s|the school s) (?:own )?name\b")
_AUTHORITY_KO = (
    r"은행|경찰|경찰서|검찰|법원|국세청|세무서|구청|시청|교육청|정부|카드사|금융감독원|금감원|"
    r"택배|우체국|보안팀|전산팀|관리자|원장님|원장|선생님|교장"
)
_IMPERSONATION_KO = re.compile(
    r"(?:인|이신|인 것|한|하는)\s?척|척(?:하고|해서|하면서|하며|해)|사칭|속여서|속여|"
    rf"(?:{_AUTHORITY_KO})(?:에서)?\s?이?라고 (?:하고|해서|속여|하면서)|"
    # "제가 police 라고 해요": the writer passes as an authority, named in either language
    rf"(?:제가|내가|저는|나는|우리가)\s?(?:{_AUTHORITY_KO}|police|the police|bank|the bank|court|"
    r"tax office|government)\s?(?:이라고|라고|인 것처럼|인 척)\s?(?:해|하|말|속)|"
    r"(?<!내 )(?<!제 )(?<!우리 )(?<!학원 )(?<!본인 )(?:이름으로|명의로)|"
    # "학부모님께서 직접 보내신 것처럼 보이도록": written as if someone else had sent it
    r"(?:보낸|보내신|쓴|쓰신|작성한|작성하신)\s?(?:것|거)\s?처럼"
)
# What must never be asked of people in a message.
_SECRET_EN = (
    r"pass ?words?|passcodes?|pins?(?: numbers?| codes?)?|card numbers?|"
    r"(?:credit|debit) card(?: numbers?| details)?|cvv|cvc|security codes?|verification codes?|"
    r"one time (?:codes?|passwords?)|"
    r"otp|login(?: details)?|log in details|credentials|bank details|account numbers?|sort codes?|"
    r"social security numbers?|ssn|expiry dates?"
)
_ASK_EN = (
    r"reply(?: back)? with|respond with|text(?: back| me| us)?|send(?: back| me| us| in)?|"
    r"email(?: back| me| us)?|give(?: me| us)?|tell(?: me| us)?|confirm|provide|enter|share|"
    r"verify|type|submit|ask(?: them| him| her)? for|re ?enter|update"
)
_SECRET_ASK_EN = re.compile(
    rf"(?<!never )(?<!not )(?<!dont )\b(?:{_ASK_EN})\b(?: \w+){{0,5}} (?:{_SECRET_EN})\b"
)
_SECRET_KO = (
    r"비밀번호|비번|패스워드|카드\s?번호|카드번호|cvc|cvv|인증\s?번호|인증\s?코드|otp|보안\s?코드|"
    r"주민\s?번호|주민등록번호|계좌\s?비밀번호|아이디랑|아이디와|로그인 정보|유효\s?기간"
)
_ASK_KO = r"회신|보내|알려|확인|입력|적어|말해|불러|제출|답장|답해"
_SECRET_ASK_KO = re.compile(rf"(?:{_SECRET_KO})[^.?!]{{0,24}}?(?:{_ASK_KO})")
_NEVER_SHARE_KO = re.compile(
    rf"(?:{_SECRET_KO})[^.?!]{{0,16}}(?:알려\s?주지|공유하지|누르지|주지)\s?마"
)
_PAYMENT_FRAUD = re.compile(
    r"\b(?:my|his|her) (?:own |personal |private )(?:bank )?account\b|"
    r"\bpersonal (?:bank )?account\b|(?:내|제|개인|본인) (?:개인 )?계좌"
)
# Money that people are asked to move: without it "my own account" is only whose account it is
# ("I'll write to her from my own account").
_MONEY = re.compile(
    r"\b(?:pay|paid|paying|payment|transfer|deposit|wire|money|fees?|cash|funds|refund|"
    r"tuition)\b|송금|입금|이체|납부|결제|보내|돈|비용|회비|수강료|환불"
)
# A link to log in on, sent to people: how credentials are phished.
_PHISHING_EN = re.compile(
    r"\blog ?in here\b|\blog ?in\b(?: \w+){0,8} http|\bhttp\w*(?: \w+){0,4} login\b"
)
# The sender saying the message is untrue: a lie told to scare or pressure its readers.
_LIE_EN = re.compile(
    r"\b(?:there isn ?t (?:one|any)|there is no (?:outbreak|fire|accident)|"
    r"(?:it s|its|it is|that s|thats) not (?:true|real)|isn ?t true|as a prank|"
    r"(?:just )?to see how (?:they|people|everyone) (?:react|respond)|"
    # "She wasn't, but I want everyone to think so": the sender says the claim is false
    r"(?:want|get|make) (?:everyone|people|them|the \w+|all the \w+) to (?:think|believe)|"
    # an accusation its sender says is unproven: "it's not confirmed but say she stole the fees"
    r"(?:not (?:confirmed|proven|verified)|unconfirmed|no proof|not sure (?:it s|its|if it s) true)"
    r"(?: \w+){0,12} (?:stole|steals|stealing|embezzl\w*|took (?:the )?money|fraud|cheat\w*)|"
    r"(?:he|she|they|it) (?:wasn ?t|isn ?t|didn ?t|weren ?t|hasn ?t|hadn ?t)"
    r"(?: (?:honestly|really|actually|obviously|though|tbh|lol))? but|"
    # a false alarm sent to test its readers: "…evacuate now lol, just want to see who reads these"
    r"(?:fire(?! drill)|evacuat\w*|bomb|lockdown(?! drill)|gas leak|emergency|get out)"
    r"(?: \w+){0,14} (?:to|wanna|want to|wanted to|just to) see "
    r"(?:(?:who|if anyone|whether anyone|how|ppl|people|everyone|everybody|them|the \w+) "
    r"(?:\w+ )?(?:reads?|notices?|panics?|falls? for|"
    r"runs?|react\w*|freak\w*|scream\w*|scramble\w*)|"
    # "…we're evacuating, just to see how fast they show up lol"
    r"how (?:fast|quick\w*|soon))|"
    r"april fool\w*(?: \w+){0,8} (?:fire|evacuat\w*|bomb|lockdown|gas leak|emergency)|"
    # a false notice for fun: "…for a bit of fun on the first of April, announce we're closing down"
    # …or a false alarm for fun: "for a bit of harmless fun, announce a gas leak … hilarious"
    r"(?:for (?:a bit of |some )?(?:harmless )?fun|as a joke|for a laugh|first of april|"
    r"april (?:1st|first))"
    r"(?: \w+){0,16} (?:clos(?:ing|ed) (?:down|for good)|shut(?:ting)? down|bankrupt\w*|"
    r"going out of business|fire(?! drill)|evacuat\w*|bomb|lockdown|gas leak)|"
    r"(?:clos(?:ing|ed) (?:down|for good)|shut(?:ting)? down|bankrupt\w*|going out of business)"
    r"(?: \w+){0,16} (?:hilarious|funny|for fun|as a joke|for a laugh|april fool\w*)|"
    # the alarm first, and the fun had of it ("…evacuated at once. The pupils would find it
    # hilarious when we reveal the joke"); "pulling the fire alarm as a joke" is the pupils' prank
    r"(?:fire(?! drill| alarm)|evacuat\w*|bomb|lockdown|gas leak)"
    r"(?: \w+){0,24} (?:hilarious|reveal (?:the|that it s a) (?:joke|prank)|as a joke|"
    r"for a laugh|for (?:a bit of |some )?(?:harmless )?fun)|"
    # the sender does not care whether it is true: "true or not doesn't matter, post it"
    r"(?:whether|if) (?:it s|its|it is|that s|thats) true (?:or not )?(?:doesn ?t|does not|don ?t) "
    r"matter|(?:don ?t|do not|doesn ?t) (?:care|matter) (?:if|whether) (?:it s|its|it is) true|"
    # …or the alarm first, then the joke: "there's a gas leak, evacuate now. just an April Fools"
    r"(?:fire|evacuat\w*|bomb|lockdown|gas leak|emergency)(?: \w+){0,14} "
    r"(?:april fool\w*|(?:it s|its|it is|this is|that s|thats) (?:just |only )?(?:a |an )?"
    r"(?:joke|prank)|just (?:a |for a )(?:joke|laugh|prank)))\b"
)
_LIE_KO = re.compile(
    r"사실(?:은|이)? 아닌|거짓말|실제로[^.?!]{0,12}없|"
    # "…홍역 돌았다고 문자 뿌려주세욬ㅋㅋ 진짜는 아닌데", "…사실 아님ㅋㅋ": said untrue, in passing
    # ("진짜 아니라고" is a correction, the words to send)
    r"진짜(?:는|로)?\s?(?:아닌데|아니지만|아님)|사실\s?아님|"
    # the sender concedes the claim is untrue: "사실은 아니지만 그래야 …", "사실은 아닙니다만"
    r"사실(?:은|이)?\s?(?:아니지만|아닙니다만|아니긴\s?하지만|아니긴\s?한데)|"
    r"반응(?:을|이)? (?:보려고|궁금|보자|볼까|보게)|"
    # "불이 났다고 공지를 올리면 아이들 반응이 재밌을 거라는": the alarm is sent for the fun of it
    r"반응(?:이|은|도)?\s?(?:좀\s?)?(?:재밌|재미있|웃기|웃길|웃겨|볼만)|"
    r"장난으로|가짜로|거짓으로|허위로|"
    # "…불났다고 문자 보내봐 ㅋㅋㅋ 장난임": the sender says it is a joke ("장난감" is a toy)
    r"장난(?:임|이야|이에요|입니다|인데|이니까|삼아|\s?ㅋ)|"
    # an accusation its sender says is unconfirmed: "확인된 건 아닌데 … 빼돌렸다고 공지"
    r"(?:확인된|확인 된|확실한|사실인지)\s?(?:건|것|게|거)?\s?"
    r"(?:아닌데|아니지만|모르지만|모르겠지만)"
    r"[^.?!]{0,40}(?:빼돌|횡령|훔치|훔쳤|도둑|사기|착복)|"
    # …or the accusation first: "최 선생님이 학생한테 손댔다는 얘기 공지로 … 사실인지는 모르겠는데"
    r"(?:빼돌|횡령|훔치|훔쳤|도둑|사기|착복|손\s?(?:을\s?)?댔|때렸|폭행|추행|학대)"
    r"[^?!]{0,80}(?:(?:사실인지|진짜인지|확실한지|맞는지)\s?(?:는|도)?\s?(?:모르|몰라|확실하지)|"
    # "…때렸다는 얘기가 돌던데요, 확인된 건 아니지만 … 흘려 주세요"
    r"(?:확인된|확인 된|확실한)\s?(?:건|것|게|거)?\s?(?:아닌데|아니지만|없지만|없는데)|"
    r"확인\s?(?:이\s?)?(?:안|못)\s?(?:된|됐|했))|"
    r"만우절[^.?!]{0,30}(?:화재|불\s?났|불이\s?났|대피|지진|폭발|휴교|휴원|확진|사고|비상)|"
    # the writer's own aside: "…일주일 휴원. (사실 아님, 반응 보려는 것)"
    r"[(\uff08]\s*사실\s?(?:아님|아니|아닌|무근)|반응\s?(?:을|이)?\s?(?:보려|볼려|보고\s?싶)|"
    # "사실인지는 몰라도 돼": whether it is true does not matter to the sender
    r"사실(?:인지|이든|이건|여부)(?:는|도)?\s?(?:몰라도|상관\s?없|아니든|중요하지\s?않|신경\s?(?:안|쓰지))"
)
# Someone's contact details sent on to a person whose claim to them is only their own word ("a
# man says he's her ex-husband", "친척이라면서"): both halves must be there.
_CLAIMED_IDENTITY = re.compile(
    r"\b(?:says|saying|said|claims?|claiming) (?:he s|hes|she s|shes|they re|theyre|to be)\b|"
    r"\bkeeps asking for (?:his|her|their) (?:contact|number|address)|"
    r"(?:이?라면서|이?라며|이?라고 하면서|모르는 (?:사람|남자|여자|분))"
)
_DETAILS_OUT = re.compile(
    r"\b(?:email|text|send|give|forward) (?:him|her|them) (?:his|her|their) "
    r"(?:phone |mobile |home )?(?:number|address|contact details|details)\b|"
    r"(?:연락처|전화번호|주소|개인 ?정보)[^.?!]{0,20}(?:보내|넘겨|전달)"
)
_ABUSE_EN = re.compile(
    r"\b(?:nasty|insult\w*|humiliat\w*|threaten\w*|threat|harass\w*|bully\w*|abuse|abusive|"
    r"mean (?:message|things)|make fun of|shame (?:her|him|them)|scare (?:her|him|them)|"
    r"hurt (?:her|him|them)|make it (?:sound |look |read )?(?:more )?(?:scary|threatening|"
    r"intimidating|menacing|frightening)|rude (?:message|things)|curse (?:at|her|him|them)|"
    r"stupid|idiot|ugly|useless|worthless|pathetic|deserves? it|we know where you live|"
    r"i know where you live|(?:we|i) know where (?:he|she|they|you) li?ves?|regret it|"
    r"you ll be sorry|watch (?:your|his|her|their) back|"
    # a veiled threat, on a condition: "if he keeps this up his son might not be so safe on the
    # pitch", "if she complains again something bad might happen to her daughter" (a warning of
    # ice, "the playground will not be safe tomorrow", sets no condition)
    r"\b(?:if|unless|or else)\b[^.?!]{0,80}?\b(?:(?:might|may|could|would|will|wont|won t) not "
    r"(?:be|stay|feel) (?:so |very |that |as |too )?safe|(?:something|anything) (?:bad |nasty |"
    r"terrible |unfortunate )?(?:might|could|may|will) happen to|"
    # "if he does not pay this week, we make sure his son will be very sorry"
    r"(?:will|ll) (?:be|feel) (?:very |really |so |truly )?sorry(?! (?:to|for|if|that|about))|"
    # shaming on a condition: "if he doesnt pay by friday we'll make sure every parent knows …"
    r"make sure (?:every|all|everyone|everybody|the whole|the other)(?: \w+){0,4} "
    r"(?:knows?|finds? out|hears?))|"
    r"(?:we re|were|i m|im|we are|i am) watching (?:you|him|her|them)|"
    r"make sure (?:\w+ ){0,4}(?:gets?|is|are) (?:thrown|kicked) out|"
    # the same message over and over until someone gives in
    r"(?:\d{2,}|fifty|a hundred|hundred|over and over)(?: \w+)?(?: times)?(?: in a row)? until|"
    r"(?:\d{2,}|fifty|a hundred)(?: \w+)? (?:times )?in a row|"
    # pestering until they give in, as the Korean "매시간 … 계속", "귀찮게 해": "keep messaging him
    # every hr till he pays, make it super annoying"
    r"(?:(?:keep|kept) (?:on )?(?:messaging|texting|emailing|sending|pinging|bugging|spamming)|"
    r"every (?:hr|hour|\d+ (?:mins?|minutes|hours?)|few (?:mins|minutes|hours)))"
    r"[^.?!]{0,40} (?:until|till|til) (?:he|she|they|(?:the )?\w+) (?:finally )?(?:pays?|"
    r"answers?|replies|responds?|gives? in|caves?|picks? up)|"
    r"make it (?:super |really |extra |very |as )?(?:annoying|anoying|irritating|unbearable)|"
    # spamming, unless the writer wants to avoid it: "I don't want to spam someone who said no"
    r"(?<!dont want to )(?<!don t want to )(?<!not to )(?<!never )(?<!avoid )(?<!not )"
    r"(?<!isnt )spam|"
    # calling someone names
    r"call (?:him|her|them) (?:a |an )?(?:\w+ )?(?:deadbeat|loser|freeloader|scrounger|moron|"
    r"jerk|scum|parasite|cheapskate)|"
    # an ultimatum that threatens to shame: "pay by Friday or we'll make sure every family knows"
    r"\bor (?:else )?(?:well|we ll|we will|ill|i ll|i will) (?:make sure|tell|let|inform|post|"
    r"announce|share)(?: \w+){0,3} (?:every|everyone|everybody|all|the whole|the other)|"
    # a child made to pay for what the parents do: "if he doesn't pay we'll make sure his son has
    # a really miserable time in class"
    # "…better pay up this week or his kid might not be safe here": harm held over a child
    r"\bor (?:else )?(?:his|her|their) (?:son|daughter|kid|kids|child|children|boy|girl)"
    r"(?: \w+){0,2} (?:might|may|will|would|could|won t|wont)(?: not)? (?:be |stay |feel |get )?"
    r"(?:safe|hurt|harmed)\b|"
    r"(?:his|her|their|your) (?:son|daughter|kid|kids|child|children|boy|girl)(?: \w+){0,2} "
    r"(?:won t|wont|will not|might not|may not|wouldn t|isn t|is not|aren t|are not) "
    r"(?:be |stay |feel )?safe\b|"
    r"(?:make|making) sure (?:that )?(?:his|her|their|your) (?:son|daughter|kid|kids|child|"
    r"children|boy|girl)\b(?: \w+){0,6} (?:miserable|hard time|rough time|suffers?|regrets?|"
    r"pays? for)|"
    # harm held over someone: "…or something can happen to him", "something bad might happen
    # to your son"
    r"something (?:\w+ )?(?:can|could|may|might|will|would|is going to|gonna) happen to "
    r"(?:him|her|them|you|your|his|their)\b|"
    # …with the verb left bare, on an ultimatum: "if you not pay fee this week, something bad
    # happen to your son", "pay this week or something bad happen to his kid"
    r"\b(?:or|if (?:you|he|she|they) (?:not|don t|dont|do not|doesn t|doesnt|won t|wont))\b"
    r"[^.?!]{0,60}?something (?:\w+ )?happens? to (?:him|her|them|you|your|his|their)\b|"
    # calling someone a criminal to others: "…we'll tell every parent his kid is a thief"
    r"(?:he|she|they|(?:his|her|their) \w+) (?:is|s|are|re|was) (?:a |an )?"
    r"(?:thief|thieves|liar|liars|criminal|crook|cheat|fraud|pervert)|"
    # "… that James Taylor is a thief and a liar and nobody should trust him"
    r"(?:is|s|are) (?:a |an )?(?:thief|liar|criminal|crook|cheat|fraud) and (?:a |an )?"
    r"(?:thief|liar|criminal|crook|cheat|fraud)|(?:nobody|no one|noone) (?:should|can|must) "
    r"(?:ever )?trust (?:him|her|them))\b"
)
_ABUSE_KO = re.compile(
    # "욕" and "비하" are also inside ordinary words: 의욕, 목욕, 욕심, 욕실; 준비하다, 대비하다
    r"(?<![의목탐식광수림])욕(?![실조심구망장])|협박|모욕|비하(?=\s?(?:하|해|했|발언|적|성|당))|"
    r"망신|저주|죽여|죽일|괴롭|조롱|따돌|겁을 주|겁주|혼쭐|스팸|멍청|뚱뚱|못생|"
    r"가만 ?(?:안 ?[두둬둔]|두지 않|안 ?놔)|자격(?:도|이)? 없|못 버틸|후회하게|"
    # "진상" is also "the truth" (진상 규명): only as a name for a person
    r"(?:완전|개|진짜|엄청) ?진상|진상(?:이라고|이래|짓|고객|학부모|엄마|아빠)|"
    r"밤길 ?조심|지켜보고 있|"
    # a person called worthless: "'넌 여기서 쓸모없는 사람이야' 문자 가게 예약해줘"
    r"(?:쓸모\s?없는|무능한|한심한|쓰레기\s?같은)\s?(?:사람|인간|놈|년|선생|새끼|존재)|"
    # "…안 내면 서준이가 어떻게 될지 모른다고, 좀 겁나게 써": a threat, said or asked for
    r"어떻게 될지 (?:몰라|모른|모릅)|겁나게|무섭게 (?:써|보내)|"
    r"겁\s?(?:좀\s?)?(?:줘|주라|줄래|주고|주게|주세요|먹여)|가만\s?안\s?있|"
    # the same message every few minutes until someone gives in: "5분마다 문자 가게 해줘"
    r"\d+\s?(?:분|초)\s?마다|몇\s?(?:분|초)\s?마다|"
    # "답장 할 때까지 매시간 문자 계속 보내요. 귀찮게 해 주세요": pestering until they give in
    r"귀찮게\s?(?:해|하|만들)|(?:답장|답|연락)\s?(?:할|올|줄)\s?때까지[^.?!]{0,20}(?:계속|매)|"
    r"매\s?(?:시간|분)(?:마다)?[^.?!]{0,12}계속|"
    # "이번주 안 내면 동네에 다 소문낸다고": pay or be shamed
    r"소문\s?(?:을\s?)?(?:내|낸|낼|퍼뜨|퍼트|다\s?내)(?!지\s?(?:말|마|않))|"
    r"안\s?(?:내|갚|주|보내)면[^.?!]{0,30}(?:알린다|알릴\s?거|공개한다|공개할\s?거|퍼뜨)|"
    # a child made to pay for what the parents do: "자꾸 민원 넣으면 애한테 불이익 갈 거라고"
    r"(?:(?:애|아이|자녀|아들|딸|학생)(?:한테|에게)\s?(?:도\s?)?|민원[^.?!]{0,24}면[^.?!]{0,24})"
    r"불이익(?!\s?(?:이|은|을|는)?\s?(?:없|안\s?(?:가|주|받)|가지\s?않|주지\s?않|받지\s?않))"
)


# Harm is in what would be sent: a question about the bullying policy is not a request to bully.
_SEND_CUE = re.compile(
    r"\b(?:send|text|txt|sms|email|e mail|mail|telegram|messag|tell|post|announce|remind|write|"
    r"reply|ask|get|let \w+ know|notify|contact|notice|put up)\w*\b|"
    r"보내|문자|메일|텔레그램|메시지|공지|전해|알려|써 ?줘|쓰고|돌려|연락"
)


def asks_to_send(words: str) -> bool:
    """Whether a normalised message has a word of sending in it (send, text, 보내, 공지, …)."""
    return _SEND_CUE.search(words) is not None


def harm_in(words: str, *, korean: bool) -> Harm | None:
    """The kind of harm a normalised request asks for, or None."""
    if not _SEND_CUE.search(words):
        return None
    if korean:
        if _IMPERSONATION_KO.search(words):
            return Harm("impersonation", korean)
        if _SECRET_ASK_KO.search(words) and not _NEVER_SHARE_KO.search(words):
            return Harm("secrets", korean)
    if _SECRET_ASK_EN.search(words) or _PHISHING_EN.search(words):
        return Harm("secrets", korean)
    if _IMPERSONATION_EN.search(words) and not _OWN_NAME_EN.search(words):
        return Harm("impersonation", korean)
    # Both languages' patterns, whatever the reply's language: a request in English that names
    # "최 선생님" is read as Korean, and its "it's not true but she deserves it" is still English.
    if _LIE_KO.search(words) or _LIE_EN.search(words):
        return Harm("lies", korean)
    if _CLAIMED_IDENTITY.search(words) and _DETAILS_OUT.search(words):
        return Harm("privacy", korean)
    if _PAYMENT_FRAUD.search(words) and _MONEY.search(words):
        return Harm("payment_fraud", korean)
    if _ABUSE_KO.search(words) or _ABUSE_EN.search(words):
        return Harm("abuse", korean)
    return None


# -- what the product cannot do -----------------------------------------------------------------

_CHANNELS = {  # normalised cue → how the reply names it
    "kakaotalk": "KakaoTalk",
    "kakao talk": "KakaoTalk",
    "kakao": "KakaoTalk",
    "카톡": "카카오톡",
    "카카오톡": "카카오톡",
    "카카오": "카카오톡",
    "whatsapp": "WhatsApp",
    "whats app": "WhatsApp",
    "왓츠앱": "WhatsApp",
    "slack": "Slack",
    "슬랙": "Slack",
    "discord": "Discord",
    "디스코드": "Discord",
    "wechat": "WeChat",
    "위챗": "WeChat",
    "instagram": "Instagram",
    "인스타": "Instagram",
    "facebook": "Facebook",
    "페이스북": "Facebook",
    "microsoft teams": "Microsoft Teams",
    "ms teams": "Microsoft Teams",
    "naver band": "BAND",
    "네이버 밴드": "BAND",
    "line messenger": "LINE",
}
_CHANNEL = re.compile(
    "|".join(
        re.escape(cue) if re.search(r"[\uac00-\ud7a3]", cue) else rf"\b{re.escape(cue)}\b"
        for cue in sorted(_CHANNELS, key=len, reverse=True)
    )
)
_POLITE_EN = (
    r"^(?:(?:please|pls|plz|hey|hi|ok|okay|so|now|quick(?:ly)?|also|and|then|could|can|would|"
    r"will|you|u|ya|i|we|want|need|like|d|to|lets|let|us|me|just|go|ahead)\s+)*"
)
_MISSING_EN: tuple[tuple[Missing, re.Pattern[str]], ...] = (
    (
        "call",
        re.compile(
            # "could you ring Emma Wilson for me?"; "ring the bell at 3", "ring it" are no call
            rf"{_POLITE_EN}(?:call(?! off)|phone|dial|"
            r"ring(?! (?:it|that|this)\b)(?! (?:the |a )?(?:bell|alarm|buzzer))|"
            r"give (?:\w+ ){1,3}a (?:quick )?(?:call|ring))\b"
        ),
    ),
    ("call", re.compile(r"\b(?:make|place) a (?:phone )?call\b|\bby phone\b|\bvoice ?mail\b")),
    ("fax", re.compile(r"\bfax\w*\b")),
    (
        "post",
        re.compile(
            r"\b(?:by|via|through the) (?:post|snail mail|letter|courier)\b|\bposts? a letter\b|"
            r"\b(?:printed|paper) (?:letter|copy)\b"
        ),
    ),
    (
        "booking",
        re.compile(
            rf"{_POLITE_EN}(?:book|reserve)\b|"
            r"\b(?:add|put) (?:\w+ ){0,3}(?:in|on|to) (?:my |our |the )?(?:calendar|diary)\b|"
            r"\bcalendar (?:invite|event)\b|\b(?:google|outlook) calendar\b"
        ),
    ),
    (
        "data_change",
        re.compile(
            rf"{_POLITE_EN}(?:delete|remove|erase|wipe|edit|update|change|rename|merge|add)\b"
            r"(?:(?! saying| that | to say).)*"
            r"\b(?:contacts?|phone numbers?|numbers?|email address(?:es)?|address(?:es)?|records?|"
            r"groups?|details|data|database|list|directory)\b|"
            r"\b(?:get rid of|delete|remove|erase)\b(?: \w+){0,4} from (?:the |our )?"
            r"(?:contacts|list|directory|database)\b|"
            r"\bchange (?:his|her|their|the) (?:phone |mobile )?(?:number|email|address)\b|"
            r"\b(?:update|edit|rewrite|change) (?:the |our )?(?:\w+ ){0,3}"
            r"(?:document|policy|file)\b"
        ),
    ),
    (
        "payment",
        re.compile(
            rf"{_POLITE_EN}(?:pay|transfer|wire|refund|charge|reimburse)\b(?! attention)|"
            r"\b(?:make|process|send) (?:a |the )?(?:payment|bank transfer|refund)\b|"
            r"\b(?:can|could|would|will) you (?:please )?(?:pay|refund|reimburse)\b|"
            # a wish that the money go out: "it'd be good if Ms Choi's taxi claim got paid out"
            r"\b(?:it ?d|it would|would it) be (?:good|great|nice|ideal|best) if\b(?: \w+){0,10} "
            r"(?:got |get |gets |was |were |be |is )?(?:paid|reimbursed|refunded)(?: out| back)?\b"
        ),
    ),
    (
        "web",
        re.compile(
            r"\b(?:search|look up|check|google|browse)\b(?: \w+){0,5} "
            r"(?:online|on the (?:web|internet)|on google|the web|the internet)\b|"
            r"\bweather forecast\b|\bgoogle it\b"
        ),
    ),
    (
        "settings",
        re.compile(
            r"\b(?:switch|turn)\w* (?:\w+ ){0,3}approvals?(?: step| process)? off\b|"
            r"\b(?:switch|turn) off (?:the |my )?approvals?\b|"
            r"\b(?:change|edit) (?:the |my |our )?(?:settings|policy settings|approvers?)\b"
        ),
    ),
    # A request to translate; "who translated this version of the scriptures?" asks a fact.
    (
        "translate",
        re.compile(
            rf"{_POLITE_EN}translate\b|\b(?:can|could|would|will) you (?:please )?translate\b|"
            r"\b(?:a|the) translation (?:of|for) (?:this|that|the attached|my|our)\b|"
            r"\btranslate (?:this|that|it|them|the attached|my|our)\b"
        ),
    ),
    ("print", re.compile(rf"{_POLITE_EN}print\b|\bprint(?:ed)? (?:out|off)\b")),
)
_MISSING_KO: tuple[tuple[Missing, re.Pattern[str]], ...] = (
    (
        "call",
        re.compile(
            # "직접 전화를 좀 걸어 연결해 주실 수": the object particle may come first
            r"전화\s?(?:를\s?)?(?:좀\s?)?"
            r"(?:걸어|걸 수|해\s?(?:줘|주|줄)|드려\s?(?:줘|주)|연결|넣어)|"
            r"통화\s?(?:좀\s?)?(?:연결|해\s?(?:줘|주))"
        ),
    ),
    ("fax", re.compile(r"팩스")),
    ("post", re.compile(r"우편|등기|편지로")),
    (
        "booking",
        re.compile(
            r"(?:실|룸|강당|강의실|교실|체육관|홀|회의실|상담실|좌석|식당|캘린더|달력)"
            r"[^.?!]{0,12}(?<!알림 )(?<!알림)(?<!리마인더 )(?:예약|잡아)|"
            r"캘린더에|달력에|일정(?:에)? (?:등록|추가)"
        ),
    ),
    (
        "data_change",
        re.compile(
            r"(?:연락처|번호|전번|폰번|주소|그룹|명단|목록|데이터|기록)[^.?!]{0,16}"
            r"(?:삭제|지워|지우|수정|변경|바꿔|고쳐|추가해|등록해|update|업데이트|갱신)|"
            r"(?:으로|로) (?:수정|변경)\s?(?:해|부탁)|"
            # "…이메일이 바뀌셨대요. emma.w@… 로 고쳐 놔 주세요": fixed and left so, a record
            r"(?:으로|로)\s?(?:고쳐|바꿔|수정해|변경해)\s?(?:놔|놓|둬|두)"
        ),
    ),
    (
        "payment",
        re.compile(
            r"(?:결제|송금|이체|환불|입금|지급)(?:를|을)?\s?(?:좀\s?)?(?:대신\s?)?(?:해|처리|까지|요망|바람|바랍니다|하도록|되도록)|"
            # "강사료를 … 계좌로 보내 주세요": money sent to an account
            r"계좌\s?(?:로|에)\s?(?:\S+\s?){0,2}?(?:보내|넣어|쏴|부쳐)|"
            r"돈\s?(?:좀\s?)?(?:보내|부쳐)"
        ),
    ),
    (
        "web",
        re.compile(
            # "인터넷비 지원" is a question about an allowance, not a web search
            r"인터넷\s?(?:에서|으로|에)?\s(?:\S+\s){0,4}?(?:좀\s)?(?:검색|찾아|알아|확인|뒤져)"
            r"|인터넷\s?(?:검색|으로 찾아|에서 찾아)|웹에서|구글|네이버에서|검색해|"
            r"날씨\s?(?:좀\s?)?(?:알려|확인|찾아|어때|검색)"
        ),
    ),
    ("settings", re.compile(r"설정(?:을|도)?\s?(?:좀\s?)?(?:바꿔|변경|수정|꺼)")),
    ("translate", re.compile(r"번역")),
    # asked for, not told of: "시험지 인쇄는 다 해놨는데" is done already
    (
        "print",
        re.compile(
            r"출력\s?(?:해|좀|부탁)|\d+\s*부(?:만|씩)?\s*(?:뽑|출력|인쇄)|"
            r"인쇄(?!\S*\s*(?:다\s*)?(?:해\s*놨|해\s*놓|했|됐|끝))"
        ),
    ),
)
_MEDIUM_EN = re.compile(rf"\b(?:on|via|through|by|over|using|in) (?:the )?({_CHANNEL.pattern})")
_MEDIUM_KO = re.compile(
    rf"({_CHANNEL.pattern})(?:\s?(?:으로|로|에서|에|방에|채널에|단톡)|[^.?!]{{0,10}}(?:채널|방)에)"
)
# English content starts at the first of these; the command is what comes before.
_CONTENT_EN = re.compile(
    r"\b(?:saying|that|to say|telling|to tell|and tell|asking|about|and say|"
    r"ask (?:\w+ )?(?:whether|if))\b"
)
# Korean content ends at the last quotation ending; the command is what follows.
_QUOTE_END_KO = re.compile(
    r"(?:라고|다고|자고|냐고|래요|대요|라는|다는)\s(?!들었|들어서|들었는데|하더라|하던데|하시던데)"
)
_CONTENT_LABEL_KO = re.compile(r"(?:^|\s)(?:내용|본문)(?:은|는|이|:)?\s")


def _channel_as_medium(words: str) -> re.Match[str] | None:
    """A channel named as the way to send ("on WhatsApp", "카톡으로"), anywhere in the message."""
    return _MEDIUM_EN.search(words) or _MEDIUM_KO.search(words)


def command_of(words: str, *, korean: bool) -> str:
    """The part of a normalised request that asks, without the text it asks to send."""
    return _command_ko(words) if korean else _command_en(words)


def _command_en(head: str) -> str:
    match = _CONTENT_EN.search(head)
    return head[: match.start()] if match else head


def _command_ko(head: str) -> str:
    label = _CONTENT_LABEL_KO.search(head)  # "… 보내 주십시오 내용은 환불 처리가 완료되었습니다"
    head = head[: label.start()] if label else head
    ends = list(_QUOTE_END_KO.finditer(head))
    return head[ends[-1].end() :] if ends else head


_CALLED_OFF = re.compile(r"\bcall(?: \w+){0,4} off\b")
# "I need to ring Emma - I'll ring from my own phone, I just need her number": the writer calls,
# and asks us for the number only.
_CALLING_MYSELF = re.compile(
    r"\bfrom my (?:own )?(?:phone|mobile|cell|landline)\b|"
    r"\b(?:just |only )?need (?:his|her|their|the|a) (?:phone |mobile |contact )?number\b"
)
# A change to our records asked as a need, with no message to send: "…so his details in the
# contacts need updating to that".
_NEEDS_CHANGING_EN = re.compile(
    r"\bin (?:the|our) (?:contacts|records|directory|database|system|contact list)\b(?: \w+){0,2} "
    r"(?:needs?|has|have) (?:to be )?(?:updat|chang|correct|fix|amend)\w*"
)


def unsupported_in(words: str, *, head: str, korean: bool) -> Unsupported | None:
    """What a request asks for that the product has no tool for, or None. ``words`` is the
    normalised message, ``head`` the same up to its first colon (after it: the text to send)."""
    command = _command_ko(head) if korean else _command_en(head)
    channel = _CHANNEL.search(command) or _channel_as_medium(words)
    if channel:
        return Unsupported("channel", korean, _CHANNELS[channel.group(channel.lastindex or 0)])
    for missing, pattern in _MISSING_KO if korean else _MISSING_EN:
        if missing == "call" and (_CALLED_OFF.search(words) or _CALLING_MYSELF.search(words)):
            continue  # "call that off" cancels; the command stops at "that", so look at all
        # A change of settings is never the text to send, and is often asked after a "that".
        if pattern.search(words if missing == "settings" else command):
            return Unsupported(missing, korean)
    if not korean and _NEEDS_CHANGING_EN.search(words) and not _SEND_CUE.search(command):
        return Unsupported("data_change", korean)
    if korean:  # an English phrase inside a Korean request ("slack에 올려줘") names it too
        for missing, pattern in _MISSING_EN:
            if missing in {"fax", "web"} and pattern.search(_command_en(command)):
                return Unsupported(missing, korean)
    return None


# -- the same questions, by meaning ------------------------------------------------------------

_ORDINARY = "ordinary"
# Cosine similarities of e5 sit close together (0.8 to 0.9 for any two requests), so the margin is
# small in absolute terms. Set on the eval sets' 366 ordinary messages the patterns let through
# (demo, unseen, blind dev half): the nearest any came was 0.017 (2026-11-26).
BOUNDARY_MARGIN = 0.02
_HARM_OF_ONE_SENTENCE = frozenset(
    {"harm:abuse", "harm:impersonation", "harm:secrets", "harm:payment_fraud"}
)
# One sentence of a longer message is read for harm with a wider margin: over the dev half's
# 2,927 ordinary messages (2026-11-29) the nearest sentence came to 0.023.
SENTENCE_MARGIN_EXTRA = 0.005


@dataclass(frozen=True)
class BoundaryScores:
    """The nearest boundary family (``harm:…`` / ``unsupported:…``) and its lead over the
    nearest ordinary request; for tuning and logs."""

    family: str
    lead: float


class BoundaryReader:
    """Reads a message by meaning: the families of harm and missing tools of
    ``boundary_exemplars.py`` against ordinary requests. Examples are embedded on first use,
    once per process; each family scores the mean similarity of its ``k`` nearest examples."""

    def __init__(
        self,
        embed: Embed,
        *,
        harm: Mapping[str, Sequence[str]] = HARM,
        unsupported: Mapping[str, Sequence[str]] = UNSUPPORTED,
        ordinary: Sequence[str] | None = None,  # default: ``ordinary_requests()``
        k: int = 2,
        margin: float = BOUNDARY_MARGIN,
    ) -> None:
        self._embed = embed
        self._families: dict[str, Sequence[str]] = {
            **{f"harm:{kind}": texts for kind, texts in harm.items()},
            **{f"unsupported:{kind}": texts for kind, texts in unsupported.items()},
            _ORDINARY: ordinary_requests() if ordinary is None else ordinary,
        }
        self._k = k
        self._margin = margin
        self._lock = threading.Lock()
        self._matrix: np.ndarray | None = None
        self._labels: np.ndarray = np.asarray([])

    def _examples(self) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            if self._matrix is None:
                pairs = [(name, t) for name, texts in self._families.items() for t in texts]
                self._matrix = _unit(np.asarray(self._embed([t for _, t in pairs]), np.float32))
                self._labels = np.asarray([name for name, _ in pairs])
            return self._matrix, self._labels

    def scores(self, text: str) -> BoundaryScores:
        return self._scored(_unit(np.asarray(self._embed([text]), np.float32))[0])

    def _scored(self, vector: np.ndarray, *, harm_only: bool = False) -> BoundaryScores:
        matrix, labels = self._examples()
        similarity = matrix @ vector
        score = {
            name: float(np.sort(similarity[labels == name])[::-1][: self._k].mean())
            for name in self._families
            if not harm_only or name == _ORDINARY or name in _HARM_OF_ONE_SENTENCE
        }
        family = max((name for name in score if name != _ORDINARY), key=score.__getitem__)
        return BoundaryScores(family, score[family] - score[_ORDINARY])

    def _harm_in_a_sentence(self, text: str) -> BoundaryScores | None:
        """A harm one sentence of a longer message leads by the wider sentence margin: the story
        around a request ("…I'm at the end of my tether — could you text her that if she doesn't
        pay we'll make sure every parent knows…") dilutes the whole message's meaning. Only the
        harms one sentence carries by itself: a sentence of news alone sits near a false alarm
        ("…no heating in the building on the morning of the inspection"; that it is untrue is
        said elsewhere, if at all), and near a missing tool ("bring laptops" and booking)."""
        sentences = _sentences(text)
        if not sentences:
            return None
        vectors = _unit(np.asarray(self._embed(sentences), np.float32))  # one call for all
        best = max(
            (self._scored(vector, harm_only=True) for vector in vectors),
            key=lambda scores: scores.lead,
        )
        if best.lead < self._margin + SENTENCE_MARGIN_EXTRA:
            return None
        return best

    def read(self, text: str, *, korean: bool) -> Harm | Unsupported | None:
        """The harm or missing tool a message is clearly nearer than any ordinary request."""
        scores = self.scores(text)
        if scores.lead < self._margin:
            scores = self._harm_in_a_sentence(text) or scores
        if scores.lead < self._margin:
            return None
        side, kind = scores.family.split(":", 1)
        if side == "harm":
            if kind == "secrets" and not _A_SECRET.search(text):
                # "…tryouts open to everyone, sign up sheet is on the noticeboard" sits near
                # the phishing examples by its words of signing up, and asks nobody for anything
                # secret: a request for secrets names one.
                return None
            return Harm(cast(HarmKind, kind), korean)
        return Unsupported(cast(Missing, kind), korean)


# A sentence read on its own; shorter ones ("its a prank") carry too little meaning to compare.
_CLAUSE_END = re.compile(r"(?<=[.!?\uff1f])\s+|\s[—–]\s|\n+")  # noqa: RUF001
_MIN_SENTENCE_WORDS = 6


def _sentences(text: str) -> list[str]:
    parts = [part.strip() for part in _CLAUSE_END.split(text.strip())]
    long = [part for part in parts if len(part.split()) >= _MIN_SENTENCE_WORDS]
    return long if len(parts) > 1 else []


# What a request for secrets names, in any words: a password, a code, a card, an account.
_A_SECRET = re.compile(
    r"pass\s?(?:word|code|phrase)|\bpins?\b|\bcodes?\b|\bcards?\b|\bbank|\baccount|\blog\s?in|"
    r"\bsign\s?in|credential|\botp\b|\bssn\b|security|social security|\bcvv|\bcvc|\biban|"
    r"비밀|비번|패스워드|인증|카드|계좌|로그인|아이디|주민|보안|\bid\b",
    re.IGNORECASE,
)


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


# -- what the assistant says --------------------------------------------------------------------

_REFUSAL = {
    "impersonation": (
        "I can't send that: it pretends to come from someone else (a bank, the police, an "
        "official or another person), and messages like that deceive the people who get them.",
        "그 요청은 도와드릴 수 없어요. 은행·경찰·기관이나 다른 사람인 척하는 메시지는 받는 "
        "사람을 속이는 일이에요.",
    ),
    "secrets": (
        "I can't send that: it asks people for a password, PIN, card number, verification code "
        "or payment details, which no one should be asked for by message.",
        "그 요청은 도와드릴 수 없어요. 비밀번호·카드번호·인증번호 같은 정보를 메시지로 "
        "요구하면 안 돼요.",
    ),
    "payment_fraud": (
        "I can't send that: it asks people to pay into a personal account, which is how "
        "payment fraud works.",
        "그 요청은 도와드릴 수 없어요. 개인 계좌로 돈을 보내라고 안내하는 메시지는 보낼 수 없어요.",
    ),
    "abuse": (
        "I can't send that: I don't send messages meant to insult, threaten or harass anyone.",
        "그 요청은 도와드릴 수 없어요. "
        "누군가를 모욕하거나 위협하거나 괴롭히는 메시지는 보내지 않아요.",
    ),
    "lies": (
        "I can't send that: it tells people something untrue to alarm or pressure them.",
        "그 요청은 도와드릴 수 없어요. 사실이 아닌 내용으로 사람들을 놀라게 하거나 압박하는 "
        "메시지는 보내지 않아요.",
    ),
    "privacy": (
        "I can't send that: it hands someone's contact details or personal information to a "
        "person who has no right to them.",
        "그 요청은 도와드릴 수 없어요. 다른 사람의 연락처나 개인 정보를 권한 없는 사람에게 "
        "넘겨줄 수 없어요.",
    ),
}
_HONEST_OFFER = (
    "If you need to reach people, I can help you write an honest message in your own name.",
    "연락이 필요하시면 본인 이름으로 정직한 메시지를 쓰도록 도와드릴게요.",
)

_MISSING_WORDS: dict[Missing, tuple[str, str]] = {
    "channel": ("send messages on {channel}", "{channel}(으)로 메시지를 보내는 일은"),
    "call": ("make phone calls", "전화를 거는 일은"),
    "fax": ("send faxes", "팩스를 보내는 일은"),
    "post": ("send letters by post", "우편을 보내는 일은"),
    "booking": ("book rooms or manage calendars", "장소 예약이나 일정(캘린더) 관리는"),
    "data_change": (
        "delete or edit contacts or other records",
        "연락처나 기록을 지우거나 고치는 일은",
    ),
    "payment": ("make payments or transfers", "결제나 송금은"),
    "web": ("search the internet", "인터넷 검색은"),
    "settings": (
        "change settings, policies or who approves",
        "설정이나 승인 규칙을 바꾸는 일은",
    ),
    "translate": ("translate files", "파일 번역은"),
    "print": ("print anything", "인쇄는"),
}


def refusal_reply(harm: Harm) -> str:
    refusal = _REFUSAL[harm.kind][harm.korean]
    return f"{refusal} {_HONEST_OFFER[harm.korean]}"


def unsupported_reply(missing: Unsupported, *, tool_labels: list[str]) -> str:
    """Say what is missing and what the assistant can do instead (``tool_labels``: the enabled
    write tools, named in the request's language); never a substitute action."""
    english, korean = _MISSING_WORDS[missing.missing]
    if missing.korean:
        what = korean.format(channel=missing.channel or "그 채널")
        can = ", ".join(tool_labels)
        tools = f" 승인을 거쳐 할 수 있는 일: {can}." if tool_labels else ""
        return (
            f"{what} 이 도우미가 할 수 없는 일이에요. 문서와 데이터에 대한 질문에 답할 수 "
            f"있어요.{tools}"
        )
    what = english.format(channel=missing.channel or "that channel")
    can = ", ".join(tool_labels)
    tools = f" With a person's approval I can also do these: {can}." if tool_labels else ""
    return (
        f"I can't {what} — that isn't something this assistant can do. I can answer questions "
        f"from your documents and data.{tools}"
    )
