// The files "Initialize Novel" writes into an empty folder. The YAML is commented so a novelist can
// fill it in without reading any documentation.
import type { ProjectLanguage } from './config';

export interface NovelFile {
  path: string;
  content: string;
}

export function newNovelFiles(lang: ProjectLanguage, title: string): NovelFile[] {
  const safeTitle = JSON.stringify(title.trim() || (lang === 'zh' ? '未命名小说' : 'Untitled Novel'));
  if (lang === 'zh') {
    return [
      {
        path: 'worldline.yaml',
        content: `# Worldline 项目文件
title: ${safeTitle}
# 语言：zh、en，或 auto（跟随 VS Code 的显示语言）
language: zh
# 哪些文件是正文（agent 只能读写这些文件）
manuscript:
  - "**/*.md"
  - "**/*.txt"
# 给 agent 的文风要求
style: |
  第三人称，细腻克制，多用动作和对白推进，少用形容词堆砌。
# 开场
opening:
  time: 第一天，傍晚
  location: ""
  characters: []
# 自定义变量（场记每轮推进）
variables: {}
`,
      },
      { path: 'chapters/01.md', content: '# 第一章\n\n' },
    ];
  }
  return [
    {
      path: 'worldline.yaml',
      content: `# Worldline project file
title: ${safeTitle}
# Language: zh, en, or auto (follows VS Code's display language)
language: en
# Which files are the manuscript (the agent can read and write only these)
manuscript:
  - "**/*.md"
  - "**/*.txt"
# Style instructions for the agent
style: |
  Close third person, restrained; move the story with action and dialogue.
# The opening scene
opening:
  time: Day one, evening
  location: ""
  characters: []
# Your own variables (the scribe advances them each turn)
variables: {}
`,
    },
    { path: 'chapters/01.md', content: '# Chapter One\n\n' },
  ];
}
