/**
 * Every answer the vendor's specs allow is read (issue 30 §4), for the FastEdge, streaming and
 * IAM kinds and the checks: see test/helpers/spec-answers-run.ts.
 */
import { describeSpecAnswers } from '../../helpers/spec-answers-run.js';

await describeSpecAnswers(['fastedge_app', 'streaming_player', 'streaming_video_subtitle', 'iam_reseller_notification_setting', 'streaming_ai_tasks', 'streaming_video_subtitles']);
