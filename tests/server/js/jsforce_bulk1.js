// Drives unmodified jsforce's Bulk API 1.0 client (conn.bulk: XML jobs, CSV data) against the mock org and
// prints what it saw as one JSON object. Usage: node jsforce_bulk1.js (env as for jsforce_session.js)
const jsforce = require('jsforce');

function collect(stream) {
  return new Promise((resolve, reject) => {
    const records = [];
    stream.on('record', (record) => records.push(record));
    stream.on('end', () => resolve(records));
    stream.on('error', reject);
  });
}

async function failure(promise) {
  try {
    await promise;
    return null;
  } catch (error) {
    return { name: error.name, message: error.message };
  }
}

async function main() {
  const out = {};
  const conn = new jsforce.Connection({ loginUrl: process.env.LOGIN_URL, version: '59.0' });
  await conn.login(process.env.SF_USERNAME, process.env.SF_PASSWORD);
  conn.bulk.pollInterval = 50; // the mock finishes a batch as it is added; no need to wait a second
  conn.bulk.pollTimeout = 30000;

  out.query = await collect(await conn.bulk.query('SELECT Id, Name, Account.Name, CreatedDate FROM Contact ORDER BY Name'));
  out.emptyQuery = await collect(await conn.bulk.query("SELECT Id FROM Account WHERE Name = 'nobody at all'"));
  out.queryError = await failure(conn.bulk.query('SELECT Id, Nope__c FROM Account').then(collect));

  const tag = `jsforce-bulk-${Date.now()}`;
  out.insert = await conn.bulk.load('Issue__c', 'insert', [
    { Name: `${tag}-1`, Description__c: null },
    { Name: `${tag}-2`, Description__c: 'second' },
    { Description__c: 'no name' },
  ]);
  const ids = out.insert.filter((result) => result.success).map((result) => result.id);
  out.update = await conn.bulk.load('Issue__c', 'update', [{ Id: ids[0], Description__c: 'updated by bulk' }]);
  out.updated = (await conn.sobject('Issue__c').retrieve(ids[0])).Description__c;

  const key = `JS_${Date.now()}`;
  const extId = { extIdField: 'External_ID__c' };
  out.upsert = await conn.bulk.load('Product2', 'upsert', extId, [{ External_ID__c: key, Name: 'jsforce bulk product' }]);
  out.upsertAgain = await conn.bulk.load('Product2', 'upsert', extId, [{ External_ID__c: key, Name: 'jsforce bulk v2' }]);
  out.upsertedName = (await conn.sobject('Product2').retrieve(out.upsert[0].id)).Name;

  out.delete = await conn.bulk.load('Issue__c', 'delete', ids.map((Id) => ({ Id })));
  const deleted = await conn.query(`SELECT IsDeleted FROM Issue__c WHERE Name LIKE '${tag}%'`, { scanAll: true });
  out.deletedRows = deleted.records.map((record) => record.IsDeleted);
  out.hardDelete = await conn.bulk.load('Product2', 'hardDelete', [{ Id: out.upsert[0].id }]);
  const purged = await conn.query(`SELECT Id FROM Product2 WHERE External_ID__c = '${key}'`, { scanAll: true });
  out.purgedRows = purged.totalSize;

  // The job and batch objects themselves: open, add a batch, check, list, retrieve, close; abort another.
  const job = conn.bulk.createJob('Issue__c', 'insert');
  const batch = job.createBatch();
  const queued = new Promise((resolve, reject) => {
    batch.on('queue', resolve);
    batch.on('error', reject);
  });
  batch.execute([{ Name: `${tag}-job` }]);
  const batchInfo = await queued;
  const checked = await batch.check();
  const listed = await job.list();
  const jobInfo = await job.check();
  const retrieved = await batch.retrieve();
  const closed = await job.close();
  out.jobApi = {
    jobId: jobInfo.id, queuedState: batchInfo.state, checkedState: checked.state, listed: listed.map((b) => b.id),
    batchId: batchInfo.id, jobState: jobInfo.state, contentType: jobInfo.contentType, retrieved,
    closedState: closed.state, processed: closed.numberRecordsProcessed,
  };
  const other = conn.bulk.createJob('Issue__c', 'insert');
  await other.open();
  out.aborted = (await other.abort()).state;
  out.closedJobError = await failure(conn.bulk.job(jobInfo.id).createBatch().execute([{ Name: 'too late' }]));
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error));
  process.exit(1);
});
