// The part of the `docx` library the DOCX export uses. docx.ts loads this module on first use,
// so activating the extension does not evaluate the library (about 30 ms), and the bundler
// keeps only what is named here.
export { AlignmentType, Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
