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
# # Concept questions: mixture of experts
#
# The questions an interviewer asks about mixture of experts once your code runs. They are served by the
# addnorm server (`GET /questions?topic=moe`) and graded by it (`POST /questions/{id}/answers`),
# which explains each answer and cites the article it comes from.
#
# Set `ADDNORM_URL` and `ADDNORM_TOKEN` as in the exercise notebooks. No token yet? Run this once
# in a cell: it creates a learner and sets the token in this kernel.
#
# ```python
# import os; from addnorm_client import Client; os.environ["ADDNORM_TOKEN"] = Client().create_user("me")["token"]
# ```
#
# Then run the next cell to fetch the questions; pass `lang="zh"` for 中文.
#
# <details><summary>中文</summary>
#
# 写完代码之后，面试官常会就混合专家（MoE）继续追问，这里收录的就是这类题目。题目由 addnorm 服务器
# 提供（`GET /questions?topic=moe`）并判分（`POST /questions/{id}/answers`），判分时会解释
# 答案，并注明出自哪篇文章。
#
# 和练习 notebook 一样设置 `ADDNORM_URL` 与 `ADDNORM_TOKEN`。还没有 token？在任意单元格里运行
# 一次上面那行代码：它会新建一个学习者，并把 token 设置到当前 kernel 中。然后运行下一个单元格
# 获取题目；想看中文，把 `lang="en"` 改成 `lang="zh"`。
#
# </details>

# %%
from addnorm_client.questions import QuestionWalk

walk = QuestionWalk(topic="moe", lang="en")
walk.show()

# %% [markdown]
# ## Your answers
#
# Fill in `my_answers` with one entry per question number, in the shape each question asks for:
# a choice index (`2`), a list of indices for multiple-select (`[0, 2]`), `True`/`False`, or a
# number. Then run the cell: each answer is graded and explained. Change an answer and run the
# cell again as often as you like.
#
# <details><summary>中文</summary>
#
# 在 `my_answers` 里按题号填写答案，格式按题型而定：单选填选项下标（`2`），多选填下标列表
# （`[0, 2]`），判断题填 `True`/`False`，数值题填一个数。运行单元格，每个答案都会被判分并附上
# 解释。改了答案可以随时再运行。
#
# </details>

# %%
my_answers = {
    # question number: answer, e.g.  1: 2,
}

walk.answer_all(my_answers)
