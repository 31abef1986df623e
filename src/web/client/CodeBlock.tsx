/** A snippet with a Copy button (clipboard when the browser allows it, else the text is selected). */
import { useRef, useState } from 'preact/hooks';

export function CodeBlock(props: { label: string; code: string }) {
  const ref = useRef<HTMLPreElement>(null);
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.code);
      setCopied('Copied.');
    } catch {
      const range = document.createRange();
      range.selectNodeContents(ref.current!);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      setCopied('Selected: press Ctrl+C to copy.');
    }
  };
  return (
    <figure class="code">
      <figcaption>
        {props.label}
        <button type="button" onClick={() => void copy()} aria-label={`Copy: ${props.label}`}>
          Copy
        </button>
        <span aria-live="polite" class="copied">
          {copied}
        </span>
      </figcaption>
      <pre ref={ref} tabIndex={0}>
        <code>{props.code}</code>
      </pre>
    </figure>
  );
}
