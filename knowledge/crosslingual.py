"""Comparing texts across languages: one scale for every language.

The local e5 model rates any sentence in the question's own language as closer than a sentence
in another language that says exactly what was asked. Measured on the demo documents: a Korean
question's mean similarity to unrelated Korean sentences is about 0.81, to unrelated English
ones 0.73, and the English sentence that answers it scores about 0.80, below the unrelated
Korean ones. Asked in Korean about the leave policy (English), retrieval ranked the lab rules
(Korean) first, and the extractive answer declined or quoted them.

So a similarity to a sentence in another language is put on the question language's scale by
cohort normalisation (as speaker verification normalises scores): the question is compared
with a fixed cohort of ordinary sentences in each language, and a sentence's similarity counts
by how far it stands above its own language's cohort, in that cohort's spread:

    comparable = mean(question's cohort)
                 + (similarity - mean(its cohort)) / sd(its cohort) * sd(question's cohort)

Texts in the question's language, and in languages without a cohort, keep their similarity, so
a knowledge base in one language is searched and quoted exactly as before. Retrieval
(knowledge/selectors.py) orders its vector candidates this way and the built-in model's
extractive answers (chat/builtin_model/model.py) rank sentences this way.

The cohorts are everyday school and office sentences, written for this purpose, about none of
the demo documents' subjects.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from knowledge.embeddings import Embedder

_HANGUL = re.compile(r"[\uac00-\ud7af]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_SPANISH = re.compile(
    r"\b(el|la|los|las|del|de|que|y|en|por|para|se|con|una|un|al|es|son|su|sus)\b|[áéíóúñ¿¡]",
    re.IGNORECASE,
)
_ENGLISH = re.compile(
    r"\b(the|and|of|to|is|are|in|for|with|on|at|be|or|a|an|by|your|you|it)\b", re.IGNORECASE
)

COHORTS: Mapping[str, tuple[str, ...]] = {
    "en": (
        "The cafeteria serves lunch from noon until half past one.",
        "Visitors must sign in at reception and wear a badge.",
        "The school year is divided into three terms.",
        "Parents can book a meeting with the class teacher through the office.",
        "The library lends up to four books at a time.",
        "Recycling bins are emptied every Wednesday morning.",
        "New starters receive a welcome pack on their first day.",
        "The board meets four times a year to review the budget.",
        "Bicycles may be left in the racks behind the gym.",
        "Lost property is kept at the front desk for one month.",
        "Printing in colour is limited to one hundred pages a month.",
        "The annual report is published every September.",
        "Fire doors must be kept closed at all times.",
        "Team meetings take place on Monday mornings.",
        "Students are expected to arrive ten minutes before class.",
        "The newsletter goes out on the first Friday of each month.",
        "Each department keeps its own shared calendar.",
        "Contracts are renewed at the end of the academic year.",
        "Uniform must be worn on school trips.",
        "Complaints are answered within ten working days.",
        "The car park closes at nine in the evening.",
        "Training courses are announced on the intranet.",
        "Exam results are sent to families by post.",
        "Meeting rooms can be booked for up to two hours.",
        "The building is heated from October to April.",
        "Pupils may use the computer room during lunch break.",
        "The finance team closes the books at the end of each month.",
        "Volunteers need a background check before working with children.",
        "Summer camp registration opens in May.",
        "The front gate is locked after the last lesson.",
    ),
    "ko": (
        "점심은 정오부터 한 시 반까지 식당에서 제공됩니다.",
        "방문객은 안내 데스크에서 서명하고 출입증을 착용해야 합니다.",
        "학년은 세 학기로 나뉩니다.",
        "학부모는 교무실을 통해 담임 선생님과 상담을 예약할 수 있습니다.",
        "도서관에서는 한 번에 네 권까지 빌릴 수 있습니다.",
        "재활용 쓰레기는 매주 수요일 아침에 수거합니다.",
        "신규 입사자는 첫날 환영 안내서를 받습니다.",
        "이사회는 예산을 검토하기 위해 일 년에 네 번 모입니다.",
        "자전거는 체육관 뒤 거치대에 세워 둘 수 있습니다.",
        "분실물은 한 달 동안 안내 데스크에 보관됩니다.",
        "컬러 인쇄는 한 달에 백 장으로 제한됩니다.",
        "연간 보고서는 매년 9월에 발간됩니다.",
        "방화문은 항상 닫아 두어야 합니다.",
        "팀 회의는 월요일 오전에 열립니다.",
        "학생들은 수업 시작 10분 전까지 도착해야 합니다.",
        "소식지는 매달 첫째 금요일에 발송됩니다.",
        "각 부서는 공유 일정표를 따로 관리합니다.",
        "계약은 학년 말에 갱신됩니다.",
        "현장 학습 때는 교복을 입어야 합니다.",
        "민원은 영업일 기준 10일 이내에 답변합니다.",
        "주차장은 저녁 9시에 닫습니다.",
        "교육 과정은 인트라넷에 공지됩니다.",
        "시험 결과는 우편으로 가정에 발송됩니다.",
        "회의실은 최대 두 시간까지 예약할 수 있습니다.",
        "건물 난방은 10월부터 4월까지 가동됩니다.",
        "학생들은 점심시간에 컴퓨터실을 이용할 수 있습니다.",
        "재무팀은 매달 말에 장부를 마감합니다.",
        "아이들과 함께 일하는 자원봉사자는 신원 조회를 받아야 합니다.",
        "여름 캠프 등록은 5월에 시작됩니다.",
        "마지막 수업이 끝나면 정문을 잠급니다.",
    ),
    "es": (
        "El comedor sirve el almuerzo desde el mediodía hasta la una y media.",
        "Las visitas deben registrarse en recepción y llevar una tarjeta.",
        "El curso escolar se divide en tres trimestres.",
        "Las familias pueden pedir una reunión con el tutor a través de secretaría.",
        "La biblioteca presta hasta cuatro libros a la vez.",
        "Los contenedores de reciclaje se vacían los miércoles por la mañana.",
        "Las nuevas incorporaciones reciben un paquete de bienvenida el primer día.",
        "El consejo se reúne cuatro veces al año para revisar el presupuesto.",
        "Las bicicletas pueden dejarse en el aparcamiento detrás del gimnasio.",
        "Los objetos perdidos se guardan en recepción durante un mes.",
        "La impresión en color está limitada a cien páginas al mes.",
        "La memoria anual se publica cada septiembre.",
        "Las puertas cortafuegos deben permanecer cerradas en todo momento.",
        "Las reuniones de equipo son los lunes por la mañana.",
        "Se espera que los alumnos lleguen diez minutos antes de clase.",
        "El boletín se envía el primer viernes de cada mes.",
        "Cada departamento mantiene su propio calendario compartido.",
        "Los contratos se renuevan al final del curso académico.",
        "El uniforme es obligatorio en las excursiones.",
        "Las quejas se responden en un plazo de diez días hábiles.",
        "El aparcamiento cierra a las nueve de la noche.",
        "Los cursos de formación se anuncian en la intranet.",
        "Los resultados de los exámenes se envían a las familias por correo.",
        "Las salas de reuniones se pueden reservar hasta dos horas.",
        "La calefacción del edificio funciona de octubre a abril.",
        "Los alumnos pueden usar el aula de informática durante el recreo.",
        "El equipo de finanzas cierra las cuentas a final de cada mes.",
        "Los voluntarios que trabajan con niños necesitan un certificado de antecedentes.",
        "La inscripción al campamento de verano abre en mayo.",
        "La puerta principal se cierra después de la última clase.",
    ),
}


def language_of(text: str) -> str | None:
    """``ko``, ``es`` or ``en`` for a text mostly in one of them, else None. Korean by its
    script; Spanish and English, which share one, by their commonest words."""
    letters = _LETTER.findall(text)
    if not letters:
        return None
    if len(_HANGUL.findall(text)) >= 0.3 * len(letters):
        return "ko"
    if not all(letter.isascii() or letter in "áéíóúüñÁÉÍÓÚÜÑ" for letter in letters):
        return None  # another script: no cohort to compare it with
    return "es" if len(_SPANISH.findall(text)) > len(_ENGLISH.findall(text)) else "en"


def on_question_scale(
    similarities: Sequence[float],
    languages: Sequence[str | None],
    *,
    question_language: str | None,
    cohort_similarities: Mapping[str, np.ndarray],
) -> list[float]:
    """``similarities`` of sentences in ``languages`` to a question, those in another language
    than the question's put on its scale (module docstring). ``cohort_similarities``: the
    question's similarity to each sentence of each language's cohort."""
    own = cohort_similarities.get(question_language or "")
    if own is None:
        return list(similarities)
    own_mean, own_spread = float(own.mean()), float(own.std())
    comparable = []
    for similarity, language in zip(similarities, languages, strict=True):
        theirs = cohort_similarities.get(language or "")
        if language == question_language or theirs is None or not theirs.std() > 0:
            comparable.append(similarity)
            continue
        standing = (similarity - float(theirs.mean())) / float(theirs.std())
        comparable.append(own_mean + standing * own_spread)
    return comparable


_COHORT_VECTORS: dict[str, dict[str, np.ndarray]] = {}


@dataclass(frozen=True)
class QuestionScale:
    """One question's scale: its language and its similarity to every cohort sentence."""

    language: str | None
    cohort_similarities: Mapping[str, np.ndarray]

    def comparable(
        self,
        similarities: Sequence[float],
        texts: Sequence[str],
        languages: Sequence[str | None] | None = None,
    ) -> list[float]:
        """The similarities of ``texts`` (in ``languages``, when already known) to the
        question, on its scale."""
        return on_question_scale(
            similarities,
            languages if languages is not None else [language_of(text) for text in texts],
            question_language=self.language,
            cohort_similarities=self.cohort_similarities,
        )

    def standing(
        self, similarities: Sequence[float], languages: Sequence[str | None]
    ) -> list[float | None]:
        """How far each text (in ``languages``) stands above ordinary sentences of its
        language, as seen from the question, in standard deviations of that cohort (None: no
        cohort for its language)."""
        standings: list[float | None] = []
        for similarity, language in zip(similarities, languages, strict=True):
            cohort = self.cohort_similarities.get(language or "")
            if cohort is None or not cohort.std() > 0:
                standings.append(None)
            else:
                standings.append((similarity - float(cohort.mean())) / float(cohort.std()))
        return standings


def question_scale(
    embedder: Embedder, question: str, vector: Sequence[float] | np.ndarray
) -> QuestionScale:
    """The scale of ``question``, embedded as ``vector`` by ``embedder``."""
    query = np.asarray(vector)
    return QuestionScale(
        language=language_of(question),
        cohort_similarities={
            language: vectors @ query for language, vectors in _cohorts(embedder).items()
        },
    )


def _cohorts(embedder: Embedder) -> dict[str, np.ndarray]:
    """Each language's cohort, embedded once per process and model."""
    cohorts = _COHORT_VECTORS.get(embedder.model_name)
    if cohorts is None:
        cohorts = {
            language: np.asarray(embedder.embed_passages(list(sentences)))
            for language, sentences in COHORTS.items()
        }
        _COHORT_VECTORS[embedder.model_name] = cohorts
    return cohorts
