/**
 * Uploads: drop a file, POST /v1/uploads, PUT the bytes straight to the signed target (one PUT, or
 * one per part over 5 GiB) with a progress bar, then complete and show the probe's answer.
 */
import { useState } from 'preact/hooks';
import { ok, putWithProgress, type Upload, v1 } from '../api.js';
import { bytes, clock, ErrorBox, Link, ListFooter, Status, Table, when } from '../components/ui.js';
import { useAction, useList } from '../hooks.js';
// The domain's vocabulary is the one list of accepted types (a pure model file: no server code).
import { uploadContentTypes as contentTypes } from '../../../functions/domain/uploads/model.js';

type ContentType = Upload['content_type'];
const isContentType = (type: string): type is ContentType => (contentTypes as readonly string[]).includes(type);

export function UploadsPage() {
  const uploads = useList((cursor) => ok(v1.GET('/v1/uploads', { params: { query: { limit: '20', ...(cursor ? { cursor } : {}) } } })));
  const [file, setFile] = useState<File>();
  const [type, setType] = useState<ContentType>('video/mp4');
  const [sent, setSent] = useState(0);
  const [done, setDone] = useState<Upload>();
  const [dragging, setDragging] = useState(false);
  const choose = (chosen: File | undefined) => {
    if (!chosen) return;
    setFile(chosen);
    setDone(undefined);
    setSent(0);
    if (isContentType(chosen.type)) setType(chosen.type);
  };
  const upload = useAction(async (chosen: File) => {
    const created = await ok(v1.POST('/v1/uploads', { body: { filename: chosen.name, content_type: type, size_bytes: chosen.size } }));
    if (created.upload_parts) {
      let offset = 0;
      for (const part of created.upload_parts) {
        const start = offset;
        await putWithProgress(part.upload_url, chosen.slice(start, start + part.size_bytes), {}, (n) => setSent(start + n));
        offset += part.size_bytes;
      }
    } else if (created.upload_url) {
      await putWithProgress(created.upload_url, chosen, created.upload_headers ?? {}, setSent);
    }
    setSent(chosen.size);
    setDone(await ok(v1.POST('/v1/uploads/{upload_id}/complete', { params: { path: { upload_id: created.upload_id } } })));
    uploads.reload();
  });

  return (
    <>
      <section aria-labelledby="new-upload">
        <h2 id="new-upload">Upload a file</h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (file) void upload.run(file);
          }}
        >
          <label
            class={dragging ? 'dropzone dragging' : 'dropzone'}
            onDragOver={(event) => {
              event.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={(event) => {
              event.preventDefault();
              setDragging(false);
              choose(event.dataTransfer?.files[0]);
            }}
          >
            <span>Drop a video or audio file here, or choose one</span>
            <input type="file" name="file" accept="video/*,audio/*" onChange={(event) => choose(event.currentTarget.files?.[0])} />
          </label>
          {file && (
            <p>
              {file.name} · {bytes(file.size)}
            </p>
          )}
          <label>
            Content type{' '}
            <select name="content_type" value={type} onChange={(event) => setType(event.currentTarget.value as ContentType)}>
              {contentTypes.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={!file || upload.busy}>
            Upload
          </button>
        </form>
        {file && (upload.busy || sent > 0) && (
          <p>
            <label>
              Sent <progress max={file.size} value={sent} /> {Math.floor((sent / Math.max(1, file.size)) * 100)}%
            </label>
          </p>
        )}
        <ErrorBox error={upload.error} />
        {done && <ProbeResult upload={done} />}
      </section>
      <section aria-labelledby="upload-list">
        <h2 id="upload-list">Uploads</h2>
        <Table head={['File', 'Status', 'Kind', 'Size', 'Duration', 'Created', 'Id']}>
          {uploads.items.map((u) => (
            <tr key={u.upload_id}>
              <td>{u.filename}</td>
              <td>
                <Status value={u.status} />
              </td>
              <td>{u.media_kind}</td>
              <td class="number">{bytes(u.size_bytes)}</td>
              <td class="number">{clock(u.duration_ms)}</td>
              <td>{when(u.created_at)}</td>
              <td>{u.status === 'ready' ? <Link to={`/runs?upload=${u.upload_id}`}>{u.upload_id}</Link> : <code>{u.upload_id}</code>}</td>
            </tr>
          ))}
        </Table>
        <ListFooter list={uploads} empty="No uploads yet." />
      </section>
    </>
  );
}

function ProbeResult({ upload }: { upload: Upload }) {
  return (
    <div class={upload.status === 'ready' ? 'notice' : 'error'} role="status">
      <p>
        <strong>{upload.filename}</strong> is <Status value={upload.status} /> ({upload.upload_id})
        {upload.error && `: ${upload.error.message} (${upload.error.code})`}
      </p>
      {upload.status === 'ready' && (
        <>
          <p>
            {upload.media_kind}, {clock(upload.duration_ms)}, {bytes(upload.size_bytes)} ·{' '}
            <Link to={`/runs?upload=${upload.upload_id}`}>Start a run on it</Link>
          </p>
          <ul>
            {(upload.streams ?? []).map((s) => (
              <li key={s.index}>
                Stream {s.index}: {s.type} {s.codec}
                {s.width ? ` ${s.width}×${s.height}` : ''}
                {s.frame_rate ? ` ${s.frame_rate} fps` : ''}
                {s.channels ? ` ${s.channels} ch` : ''}
                {s.sample_rate ? ` ${s.sample_rate} Hz` : ''}
                {s.attached_picture ? ' (cover art)' : ''}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
