"""Labelled example messages of the routes that are not tools (knowledge, data, small talk,
help, cancel): with each write tool's own exemplars (``words`` on the tool's class,
``actions/tools/``), the intent layer's memory. Each is embedded once per process and a new
message takes the labels of its nearest examples (``intent.py``).

Written for this layer, in the way staff talk, English and Korean; they are not the held-out
phrasings of ``tests/unit/chat/test_understanding_intent.py``, which measure how well these
generalise. Add a phrasing here (or in the tool's words) when a kind of request is misread, never a
test case.
"""

from __future__ import annotations

ROUTE_EXEMPLARS: dict[str, tuple[str, ...]] = {
    "knowledge": (
        "what is our refund policy",
        "how many vacation days do new hires get",
        "where can I find the wifi password",
        "what are the opening hours on weekends",
        "explain the procedure for reporting an injury",
        "is there a dress code for staff",
        "who do I contact about payroll problems",
        "what does the handbook say about overtime",
        "환불 규정이 어떻게 되나요",
        "연차는 며칠인가요",
        "주차 등록은 어디서 하나요",
        "출근 시간이 몇 시예요",
        "병가 쓰려면 뭐가 필요해요",
    ),
    "data": (
        "how many contacts do we have",
        "list all the groups",
        "which contacts are in Parents - Class A",
        "how many messages did we send today",
        "show the messages sent this week",
        "count the failed messages",
        "who has opted out",
        "연락처가 몇 명이야",
        "이번 주에 보낸 문자 보여줘",
        "그룹 목록 보여줘",
        "실패한 메시지 몇 개야",
        "수신 거부한 사람 누구야",
    ),
    "smalltalk": (
        "hello",
        "hi there",
        "good morning",
        "thanks a lot",
        "thank you, that's great",
        "how are you",
        "안녕하세요",
        "고마워요",
        "감사합니다",
        "좋은 아침이에요",
    ),
    "help": (
        "what can you do",
        "help",
        "how do I use this assistant",
        "what kind of things can I ask you",
        "show me some examples",
        "뭐 할 수 있어?",
        "도움말",
        "사용법 알려줘",
        "어떤 기능이 있어요",
    ),
    "cancel": (
        "cancel that",
        "never mind",
        "forget it, don't send it",
        "stop, cancel the message",
        "scrap that request",
        "취소해줘",
        "그거 보내지 마",
        "방금 요청 취소",
        "됐어 안 보내도 돼",
    ),
}
