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
    "col_dtype": ("dtype", "dtype"),
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
        "Between {min} and {max}. Each item's time budget is scaled to the length you choose.",
        "{min} 到 {max} 分钟。每道题的建议用时会按你选择的时长等比例调整。",
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
        "No feedback until the interview ends: answers are only recorded, and a submission is "
        "only received.",
        "面试结束前没有反馈：回答只会被记录，提交只显示“已收到”。",
    ),
    "preset": ("Interview", "面试类型"),
    "preset_phone_screen": (
        "Phone screen: 20 minutes, one exercise and two follow-up questions",
        "电话面试：20 分钟，一道编程题和两道追问",
    ),
    "preset_onsite": (
        "On-site round: 45 minutes, warm-up, two exercises with follow-ups, explain your code",
        "现场面试：45 分钟，热身题、两道编程题及追问、讲解你的代码",
    ),
    "preset_concepts": (
        "Concept screen: 20 minutes of conceptual questions",
        "概念面试：20 分钟概念题",
    ),
    "preset_": ("Mock interview", "模拟面试"),
    "minutes_optional": (
        "Length in minutes (leave empty for the preset's)",
        "时长（分钟，留空则按面试类型的默认时长）",
    ),
    "follow_up": ("follow-up", "追问"),
    "explain": ("explain your code", "讲解代码"),
    "explain_prompt": (
        "In a few sentences: why is your code for “{title}” right, and what does it cost "
        "(time, memory)? Think of shapes, numerical stability, cost, and training versus "
        "inference.",
        "用几句话说明：你为“{title}”写的代码为什么是对的，开销是多少（时间、内存）？可以从张量"
        "形状、数值稳定性、开销、训练与推理的区别几方面来讲。",
    ),
    "your_explanation": ("Your explanation", "你的讲解"),
    "send_explanation": ("Send the explanation", "提交讲解"),
    "follows_exercise": ("After exercise {n}", "第 {n} 题之后的追问"),
    "budget": ("Budget", "建议用时"),
    "item_clock": ("On this item", "本题已用"),
    "open_item": ("Open", "打开"),
    "attempts_left": ("Submissions left", "剩余提交次数"),
    "attempts_of": ("{n} of {max} submissions", "已提交 {n} 次（最多 {max} 次）"),
    "result_received": ("received", "已收到"),
    "result_answered": ("answered", "已作答"),
    "iv_limit": (
        "This item has had all its submissions.",
        "这道题的提交次数已经用完。",
    ),
    "finish_confirm_title": ("Finish with items unanswered?", "还有题目未作答，确定结束吗？"),
    "finish_confirm_text": (
        "These items have no answer yet. If you finish now they are reported as unanswered.",
        "下面这些题还没有作答。现在结束，它们会在报告中记为未作答。",
    ),
    "finish_anyway": ("Finish anyway", "仍然结束"),
    "keep_going": ("Back to the interview", "返回继续作答"),
    "rubric": ("Rubric", "评分细则"),
    "col_dimension": ("Dimension", "维度"),
    "col_score": ("Score", "得分"),
    "col_evidence": ("Evidence", "依据"),
    "not_scored": ("not scored", "未评分"),
    "recommendation": ("Recommendation", "面试结论"),
    "col_attempts": ("Submissions", "提交次数"),
    "over_budget": ("over budget", "超出建议用时"),
    "model_answer": ("Model answer", "参考答案"),
    "self_rating": ("Rate your explanation", "给你的讲解自评"),
    "self_rating_help": (
        "For each point: 0 missed it, 1 touched on it, 2 covered it as the model answer does. "
        "Your rating goes into the report and schedules the exercise's next review.",
        "每一点：0 表示没讲到，1 表示提到了，2 表示讲得和参考答案一样完整。自评会写进报告，并决定"
        "这道题下次复习的时间。",
    ),
    "rate": ("Save my rating", "保存自评"),
    "your_rating": ("Your rating", "你的自评"),
    "trend": ("Across your interviews", "历次面试走势"),
    "trend_help": (
        "Mean rubric score of each ended interview (0 to 4), oldest first.",
        "每场已结束面试的评分细则平均分（0 到 4），按时间先后排列。",
    ),
    "paused_title": ("Practice is paused", "练习已暂停"),
    "paused_text": (
        "Your mock interview #{id} is running. Until it ends, nothing graded is shown anywhere "
        "(verdicts, answers, progress, review, hints), so that the interview stays a real test.",
        "你的模拟面试 #{id} 正在进行。结束之前，任何地方都不会显示评测结果（判定、答案、进度、"
        "复习、提示），这样面试才是真正的检验。",
    ),
    "paused_link": ("Continue the interview", "继续面试"),
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
    "advice_not_answered": ("not answered", "未作答"),
    "advice_answered": ("answered", "已作答"),
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
    "details_en": ("Details", "详细信息（英文）"),
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
