"""Build ko-squad-blind-v1.json (SQuAD 2.0) from the hand-written articles in articles_*.py.

Each article is (title, [ (context, [qa, ...]), ... ]); a qa is
  (question, answer)            -- answer must occur exactly once in context
  (question, answer, n)         -- answer occurs several times; use occurrence n (0-based)
  (question, None)              -- unanswerable (is_impossible: true)
answer_start is computed with context.find(); the build fails on a missing or ambiguous span.
"""

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from articles_a import ARTICLES as A  # noqa: E402
from articles_b import ARTICLES as B  # noqa: E402
from articles_c import ARTICLES as C  # noqa: E402

ARTICLES = A + B + C


def occurrences(context, text):
    out, i = [], context.find(text)
    while i != -1:
        out.append(i)
        i = context.find(text, i + 1)
    return out


def main():
    data, errors, n = [], [], 0
    n_ans = n_imp = n_par = 0
    titles = set()
    for title, paragraphs in ARTICLES:
        if title in titles:
            errors.append(f"duplicate title {title}")
        titles.add(title)
        if not 3 <= len(paragraphs) <= 6:
            errors.append(f"{title}: {len(paragraphs)} paragraphs")
        pars = []
        for context, qas in paragraphs:
            context = context.strip()
            n_par += 1
            out_qas = []
            for qa in qas:
                n += 1
                qid = f"ko-{n:04d}"
                question, answer = qa[0], qa[1]
                if answer is None:
                    n_imp += 1
                    out_qas.append(
                        {"id": qid, "question": question, "answers": [], "is_impossible": True}
                    )
                    continue
                occ = occurrences(context, answer)
                if not occ:
                    errors.append(f"{qid} {title}: span missing: {answer!r}")
                    continue
                if len(qa) == 3:
                    if qa[2] >= len(occ):
                        errors.append(f"{qid} {title}: occurrence {qa[2]} of {answer!r} missing")
                        continue
                    start = occ[qa[2]]
                elif len(occ) > 1:
                    errors.append(f"{qid} {title}: span ambiguous ({len(occ)}x): {answer!r}")
                    continue
                else:
                    start = context.find(answer)
                assert context[start : start + len(answer)] == answer
                n_ans += 1
                out_qas.append(
                    {
                        "id": qid,
                        "question": question,
                        "answers": [{"text": answer, "answer_start": start}],
                        "is_impossible": False,
                    }
                )
            pars.append({"context": context, "qas": out_qas})
        data.append({"title": title, "paragraphs": pars})
    if errors:
        print("\n".join(errors), file=sys.stderr)
        sys.exit(1)
    out = {"version": "v2.0", "data": data}
    (HERE / "ko-squad-blind-v1.json").write_text(
        json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    print(f"articles={len(data)} paragraphs={n_par} answerable={n_ans} unanswerable={n_imp}")


if __name__ == "__main__":
    main()
