"""The pages' own words in English and Chinese. Content (prompts, questions, diagnoses) carries
its own translations; this is only the interface around it."""

from __future__ import annotations

from typing import Literal

Lang = Literal["en", "zh"]

UI: dict[str, tuple[str, str]] = {
    "app": ("addnorm", "addnorm"),
    "tagline": (
        "Transformer building blocks, graded in a sandbox",
        "Transformer 基础模块练习，在沙箱中评测",
    ),
    "nav_exercises": ("Exercises", "编程题"),
    "nav_quiz": ("Quiz", "概念题"),
    "nav_review": ("Review", "复习"),
    "nav_progress": ("Progress", "进度"),
    "sign_out": ("Sign out", "退出"),
    "language": ("Language", "语言"),
    "switch_to": ("中文", "English"),
    "skip": ("Skip to content", "跳到正文"),
    # account
    "landing_lead": (
        "Practice for deep-learning interviews: write the Transformer's building blocks "
        "yourself and have them graded against PyTorch.",
        "为深度学习面试做准备：亲手实现 Transformer 的基础模块，并与 PyTorch 的结果逐项比对评测。",
    ),
    "landing_write": (
        "Write LayerNorm, RMSNorm, SwiGLU, residual blocks and activations in the browser, "
        "the terminal or a notebook.",
        "在浏览器、终端或 notebook 中实现 LayerNorm、RMSNorm、SwiGLU、残差块和激活函数。",
    ),
    "landing_verdict": (
        "Each submission runs in a sandbox; the verdict names the mistake, the input and the "
        "worst element.",
        "每次提交都在沙箱中运行；评测结果会指出错误类型、出错的输入和误差最大的元素。",
    ),
    "landing_questions": (
        "Conceptual questions in English and Chinese, spaced review, and timed mock interviews.",
        "中英双语的概念题、间隔复习，以及限时模拟面试。",
    ),
    "landing_own": (
        "Self-hosted: your code and progress stay on this server. Create a learner to start.",
        "自托管：你的代码和进度只保存在这台服务器上。创建一个学习者即可开始。",
    ),
    "signin_title": ("Sign in", "登录"),
    "signup_title": ("Create a learner", "创建学习者"),
    "name": ("Your name", "你的名字"),
    "create": ("Create and sign in", "创建并登录"),
    "token": ("Token", "令牌"),
    "token_help": (
        "Paste the token you were given when your learner was created.",
        "粘贴创建学习者时得到的令牌。",
    ),
    "signin": ("Sign in", "登录"),
    "remember": ("Keep me signed in on this device", "在此设备上保持登录"),
    "bad_token": ("That token is not known here.", "这个令牌无效。"),
    "bad_name": ("Please enter a name (1 to 80 characters).", "请输入名字（1 到 80 个字符）。"),
    "your_token": ("Your token", "你的令牌"),
    "token_once": (
        "Shown once. Keep it to sign in elsewhere or to use the API, the CLI and the notebooks "
        "(Authorization: Bearer …).",
        "只显示这一次。请保存好它，用于在别处登录，或在 API、命令行和 notebook 中使用"
        "（Authorization: Bearer …）。",
    ),
    "continue": ("Continue to the exercises", "进入编程题"),
    "or": ("or", "或"),
    # exercises
    "exercises_title": ("Exercises", "编程题"),
    "col_exercise": ("Exercise", "题目"),
    "col_topic": ("Topic", "主题"),
    "col_difficulty": ("Difficulty", "难度"),
    "col_status": ("Status", "状态"),
    "status_not_started": ("not started", "未开始"),
    "status_attempted": ("attempted", "已尝试"),
    "status_solved": ("solved", "已解决"),
    "difficulty_easy": ("easy", "简单"),
    "difficulty_medium": ("medium", "中等"),
    "difficulty_hard": ("hard", "困难"),
    "prompt": ("Prompt", "题目"),
    "your_code": ("Your code", "你的代码"),
    "submit": ("Submit", "提交"),
    "shortcut": ("Ctrl/⌘ + Enter submits", "Ctrl/⌘ + Enter 提交"),
    "grading": ("Grading…", "评测中…"),
    "network_error": ("Network error: please retry.", "网络错误，请重试。"),
    "verdict": ("Verdict", "评测结果"),
    "no_verdict": ("No submission yet.", "还没有提交。"),
    "cases": ("cases passed", "个用例通过"),
    "diagnosis": ("Diagnosis", "诊断"),
    "checks": ("Checks", "检查项"),
    "failing_checks": ("Failing checks", "未通过的检查"),
    "passing_checks": ("checks passed", "项检查通过"),
    "col_case": ("Case", "用例"),
    "col_target": ("Checked", "检查"),
    "col_result": ("Result", "结果"),
    "col_shape": ("Shape", "形状"),
    "col_dtype": ("dtype", "数据类型"),
    "col_error": ("Max error", "最大误差"),
    "col_allowed": ("Tolerance", "容差"),
    "col_worst": ("Worst index", "最差位置"),
    "ok": ("ok", "通过"),
    "fail": ("fail", "失败"),
    "error_at": ("Error", "错误"),
    "line": ("line", "行"),
    "output": ("Output", "输出"),
    "history": ("Past submissions", "历史提交"),
    "no_history": ("None yet.", "暂无。"),
    "view": ("view", "查看"),
    "submission": ("Submission", "提交"),
    "back_to_exercise": ("Back to the exercise", "返回题目"),
    "hints": ("Hints and solution", "提示与参考解答"),
    "show_hint": ("Hint {n} of {total}", "提示 {n}/{total}"),
    "hint_cost": (
        "Hints come one at a time, from the idea to the formula to the line people get wrong. "
        "A pass after a hint counts as Hard in your review schedule.",
        "提示一次给一条：从思路，到公式，再到最容易写错的那一行。用过提示后再通过，"
        "复习时记为“困难”。",
    ),
    "all_hints_shown": ("All hints shown.", "提示已全部显示。"),
    "solution": ("Worked solution", "参考解答"),
    "show_solution": ("Show the solution", "查看参考解答"),
    "reveal_solution": ("Reveal the solution anyway", "仍然查看参考解答"),
    "help_held": (
        "This exercise is part of your running mock interview: hints and the solution open "
        "again when it ends.",
        "这道题属于你正在进行的模拟面试：面试结束后才能查看提示和参考解答。",
    ),
    "help_locked": ("The solution is not open yet.", "参考解答尚未开放。"),
    "help_missing": (
        "This server has no worked solution for this exercise.",
        "服务器上没有这道题的参考解答。",
    ),
    "help_failed": ("That did not work; please try again.", "操作没有成功，请重试。"),
    "help_too_large": (
        "The draft is over 64 KiB and was not saved.",
        "草稿超过 64 KiB，未能保存。",
    ),
    "save_draft": ("Save draft", "保存草稿"),
    "draft_saved": ("Draft saved.", "草稿已保存。"),
    "draft_saving": ("Saving draft…", "正在保存草稿…"),
    "draft_failed": ("The draft could not be saved.", "草稿未能保存。"),
    # interviews
    "nav_interviews": ("Interviews", "模拟面试"),
    "interviews_title": ("Mock interviews", "模拟面试"),
    "start_interview": ("Start an interview", "开始模拟面试"),
    "minutes": ("Length in minutes", "时长（分钟）"),
    "minutes_help": (
        "Between {min} and {max}. One coding exercise below 45 minutes, two from 45; the rest "
        "of the time in conceptual questions.",
        "{min} 到 {max} 分钟。少于 45 分钟出一道编程题，45 分钟及以上出两道；其余时间是概念题。",
    ),
    "topics_legend": (
        "Topics (tick none to be asked about your weaker topics)",
        "主题（都不勾选时，从你较薄弱的主题中出题）",
    ),
    "start": ("Start", "开始"),
    "past_interviews": ("Past interviews", "历史面试"),
    "no_interviews": ("No interviews yet.", "还没有模拟面试。"),
    "col_started": ("Started", "开始时间"),
    "col_minutes": ("Minutes", "分钟"),
    "col_items": ("Items", "题数"),
    "col_state": ("State", "状态"),
    "state_running": ("running", "进行中"),
    "state_finished": ("finished", "已结束"),
    "state_expired": ("time ran out", "已超时"),
    "interview_n": ("Mock interview #{id}", "模拟面试 #{id}"),
    "remaining": ("Time left", "剩余时间"),
    "held_back": (
        "No feedback until the interview ends: answers are only recorded, and a submission says "
        "only passed or not passed.",
        "面试结束前没有反馈：回答只会被记录，提交只显示通过或未通过。",
    ),
    "finish": ("Finish the interview", "结束面试"),
    "item_open": ("open", "未作答"),
    "item_answered": ("answered", "已回答"),
    "item_submitted": ("submitted", "已提交"),
    "open_exercise": ("Open the exercise", "打开编程题"),
    "result_passed": ("passed", "通过"),
    "result_not_passed": ("not passed", "未通过"),
    "result_pending": ("waiting for the grader", "等待评测"),
    "result_correct": ("correct", "正确"),
    "result_wrong": ("wrong", "错误"),
    "result_not_answered": ("not answered", "未作答"),
    "last_result": ("Your last submission here", "你在这里的最近一次提交"),
    "report": ("Report", "面试报告"),
    "score": ("Score", "得分"),
    "ended_by_time": ("Time ran out.", "时间用完了。"),
    "ended_by_learner": ("You ended it.", "由你提前结束。"),
    "time_used": ("Time used", "用时"),
    "time_spent": ("Time spent", "用时"),
    "time_unaccounted": (
        "Time after your last answer or submission",
        "最后一次作答或提交之后的时间",
    ),
    "mastery_change": ("Mastery", "掌握度变化"),
    "col_before": ("Before", "之前"),
    "col_after": ("After", "之后"),
    "review_advice": ("Review next", "接下来复习"),
    "advice_wrong": ("wrong answer", "回答错误"),
    "advice_not_passed": ("the last submission did not pass", "最后一次提交未通过"),
    "advice_not_answered": ("not reached in time", "没来得及作答"),
    "advice_pending": ("submitted, not graded yet", "已提交，尚未评测"),
    "back_to_interview": ("Back to the interview", "返回面试"),
    "view_verdict": ("Full verdict", "完整评测结果"),
    "iv_not_found": ("There is no such item.", "没有这道题。"),
    "iv_over": (
        "This interview has ended (or this item was already answered).",
        "这场面试已经结束（或这道题已经回答过）。",
    ),
    "iv_retired": ("This item is no longer offered.", "这道题已不再提供。"),
    "iv_invalid": ("That was not accepted.", "提交的内容无效。"),
    "iv_failed": ("That did not work; please try again.", "操作没有成功，请重试。"),
    "iv_minutes": (
        "Please give a length between {min} and {max} minutes.",
        "请填写 {min} 到 {max} 之间的分钟数。",
    ),
    "iv_not_graded": (
        "Grading did not finish; please submit again.",
        "评测没有完成，请重新提交。",
    ),
    "iv_too_large": ("Code over 64 KiB is not accepted.", "代码超过 64 KiB，无法提交。"),
    "contract": ("What to define", "需要定义"),
    "forbidden": ("Not allowed", "不允许使用"),
    "verdict_passed": ("passed", "通过"),
    "verdict_failed": ("failed", "未通过"),
    "verdict_error": ("error", "出错"),
    "verdict_timeout": ("timeout", "超时"),
    "verdict_crashed": ("crashed", "崩溃"),
    "verdict_rejected": ("rejected", "被拒绝"),
    "verdict_not_graded": ("not graded", "未评测"),
    "summary_passed": ("All {total} cases passed.", "全部 {total} 个用例通过。"),
    "summary_failed": (
        "{passed} of {total} cases passed.",
        "{total} 个用例中通过了 {passed} 个。",
    ),
    "summary_error": ("Your code raised an error.", "你的代码抛出了异常。"),
    "summary_timeout": ("Your code ran out of time.", "你的代码运行超时。"),
    "summary_crashed": ("Your code crashed the grader's child.", "你的代码导致评测子进程崩溃。"),
    "summary_rejected": ("Your code was rejected before running.", "你的代码在运行前被拒绝。"),
    "summary_not_graded": ("Grading did not finish.", "评测没有完成。"),
    "details": ("The grader's full message", "评测器的完整说明"),
    "tab_prompt": ("Prompt", "题目"),
    "tab_code": ("Code", "代码"),
    "tab_result": ("Result", "结果"),
    "first_failure": ("First failing check", "第一个未通过的检查"),
    "shape_dtype": ("Shape · dtype", "形状 · 数据类型"),
    "error_vs_allowed": ("Error / allowed", "误差 / 允许误差"),
    "any_error": ("any", "不限"),
    "line_col": ("line {line}, column {column}", "第 {line} 行第 {column} 列"),
    "line_only": ("line {line}", "第 {line} 行"),
    "all_checks": (
        "All {n} checks, by case ({cases} cases)",
        "全部 {n} 项检查，按用例分组（{cases} 个用例）",
    ),
    "n_passed": ("{n} passed", "{n} 项通过"),
    "n_failed": ("{n} failed", "{n} 项未通过"),
    "next_exercise": ("Next exercise: {title}", "下一题：{title}"),
    "see_solution": ("Compare with the worked solution", "对照参考解答"),
    "follow_ups": ("What an interviewer asks next", "面试官接下来会问"),
    "follow_ups_help": (
        "Open a question to answer it here; your answer goes into your review schedule.",
        "展开问题即可在这里作答，答案会计入你的复习计划。",
    ),
    "solution_diff": ("Your code against the worked solution", "你的代码与参考解答的差异"),
    "diff_legend": (
        "Lines starting with − are yours only, + the solution's only.",
        "以 − 开头的行只在你的代码里，以 + 开头的行只在参考解答里。",
    ),
    "copy": ("Copy", "复制"),
    "copied": ("Copied", "已复制"),
    "copy_failed": ("Copy failed: select the token and copy it", "复制失败，请手动选中令牌复制"),
    # quiz
    "quiz_title": ("Quiz", "概念题"),
    "filter": ("Filter", "筛选"),
    "all_topics": ("All topics", "全部主题"),
    "all_types": ("All types", "全部题型"),
    "type": ("Type", "题型"),
    "type_single_choice": ("single choice", "单选"),
    "type_multiple_select": ("multiple select", "多选"),
    "type_true_false": ("true / false", "判断"),
    "type_numeric": ("numeric", "数值"),
    "type_code_reading": ("code reading", "读代码"),
    "questions_found": ("questions", "道题"),
    "answer": ("Answer", "回答"),
    "your_answer": ("Your answer", "你的答案"),
    "true": ("true", "正确"),
    "false": ("false", "错误"),
    "correct": ("Correct", "回答正确"),
    "incorrect": ("Not quite", "回答错误"),
    "correct_answer": ("Answer", "正确答案"),
    "explanation": ("Explanation", "解析"),
    "source": ("Source", "出处"),
    "next_review": ("Comes back for review", "下次复习"),
    "next_question": ("Next question", "下一题"),
    "back_to_quiz": ("All questions", "全部题目"),
    "answer_required": ("Please choose or enter an answer.", "请选择或填写答案。"),
    # review
    "review_title": ("Today's session", "今日练习"),
    "due_reviews": ("Due for review", "待复习"),
    "nothing_due": ("Nothing is due right now.", "目前没有待复习的内容。"),
    "new_items": ("New, from your weakest topics", "新内容（来自你最薄弱的主题）"),
    "focus": ("Focus", "重点"),
    "question": ("question", "概念题"),
    "exercise": ("exercise", "编程题"),
    "due": ("due", "到期"),
    # progress
    "progress_title": ("Progress", "学习进度"),
    "mastery": ("Mastery per topic", "各主题掌握度"),
    "exercise_status": ("Exercises", "编程题状态"),
    "streak": ("Streak", "连续学习"),
    "topic_counts": ("{tried} of {total} items tried", "{total} 项中已练 {tried} 项"),
    "mastery_help": (
        "Per topic: questions answered right and exercises passed, an exercise weighing three "
        "questions.",
        "按主题统计：答对的概念题和通过的编程题，一道编程题计三道概念题的分量。",
    ),
    "solved_count": (
        "{solved} of {total} exercises solved",
        "{total} 道编程题中已解决 {solved} 道",
    ),
    "days": ("day(s)", "天"),
    "recent": ("Recent activity", "最近活动"),
    "no_activity": ("No activity yet.", "还没有活动。"),
    "answered": ("answered", "回答了"),
    "submitted": ("submitted", "提交了"),
    "attempts": ("attempts", "次尝试"),
    # errors
    "not_found": ("Not found", "未找到"),
    "not_found_text": ("There is nothing here.", "这里什么也没有。"),
    "forbidden_title": ("Form expired", "表单已过期"),
    "forbidden_text": (
        "This form could not be verified (it may be from an old page). Reload and try again.",
        "无法验证此表单（可能来自旧页面）。请刷新后重试。",
    ),
}

TOPIC_NAMES: dict[str, tuple[str, str]] = {
    "ffn": ("FFN", "前馈网络 FFN"),
    "residual": ("Residual", "残差连接"),
    "layer_norm": ("LayerNorm", "LayerNorm"),
    "batch_norm": ("BatchNorm", "BatchNorm"),
    "rms_norm": ("RMSNorm", "RMSNorm"),
    "norm_placement": ("Norm placement", "归一化位置"),
    "activations": ("Activations", "激活函数"),
    "training": ("Training", "训练"),
}


def text(key: str, lang: Lang) -> str:
    en, zh = UI[key]
    return zh if lang == "zh" else en


def topic_name(topic: str, lang: Lang) -> str:
    en, zh = TOPIC_NAMES.get(topic, (topic, topic))
    return zh if lang == "zh" else en


def lang_from(cookie: str | None, accept_language: str | None) -> Lang:
    """The learner's choice, else the browser's first preference, else English."""
    if cookie in ("en", "zh"):
        return "zh" if cookie == "zh" else "en"
    first = (accept_language or "").split(",")[0].strip().lower()
    return "zh" if first.startswith("zh") else "en"
