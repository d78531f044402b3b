# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: -jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Concept questions: layer_norm
#
# The questions the interviewer asks once your code runs: why the variance is biased, where eps
# goes, what the normalisation does to each token. They are served by the addnorm server
# (`GET /questions?topic=layer_norm`) and graded by it (`POST /questions/{id}/answers`), which
# explains the answer and cites the article it comes from.
#
# Set `ADDNORM_URL` and `ADDNORM_TOKEN` as in the exercise notebooks. Run the next cell to fetch
# the questions; pass `lang="zh"` for 中文.

# %%
from addnorm_client.questions import QuestionWalk

walk = QuestionWalk(topic="layer_norm", lang="en")
walk.show()

# %% [markdown]
# ## Your answers
#
# Fill in `my_answers` with one entry per question number, in the shape each question asks for:
# a choice index (`2`), a list of indices for multiple-select (`[0, 2]`), `True`/`False`, or a
# number. Then run the cell: each answer is graded and explained. Change an answer and run the
# cell again as often as you like.

# %%
my_answers = {
    # question number: answer, e.g.  1: 2,
}

walk.answer_all(my_answers)
